// Command helm-engine renders a chart with Helm 3's own engine
// (helm.sh/helm/v3/pkg/engine), the way `helm template` prepares it: load the
// chart, enable or drop dependencies and import their values, coalesce the
// values, validate them against the schemas, render. It is the Go side of the
// Helm render benchmark and a second oracle beside the helm binary.
//
//	helm-engine -chart DIR|TGZ [-f values.yaml]... [-release NAME] [-namespace NS]
//	  prints a JSON object: template name -> rendered text (NOTES.txt included,
//	  partials left out, exactly the map the engine returns)
//
//	helm-engine -chart DIR|TGZ ... -bench N
//	  renders N times after one warm-up render and prints one JSON line with
//	  the mean time of a render. The chart is loaded and its dependencies are
//	  processed once, before the clock starts; each timed render coalesces the
//	  values, validates the schemas and executes the templates.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

type valueFiles []string

func (v *valueFiles) String() string     { return fmt.Sprint(*v) }
func (v *valueFiles) Set(s string) error { *v = append(*v, s); return nil }

// mergeMaps merges b over a the way the helm CLI merges -f files: maps merge
// recursively, anything else is replaced.
func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if vm, ok := v.(map[string]interface{}); ok {
			if bv, ok := out[k]; ok {
				if bm, ok := bv.(map[string]interface{}); ok {
					out[k] = mergeMaps(bm, vm)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

func render(c *chart.Chart, vals map[string]interface{}, opts chartutil.ReleaseOptions) (map[string]string, error) {
	top, err := chartutil.ToRenderValues(c, vals, opts, chartutil.DefaultCapabilities.Copy())
	if err != nil {
		return nil, err
	}
	return engine.Render(c, top)
}

func run() error {
	var files valueFiles
	chartPath := flag.String("chart", "", "chart directory or .tgz")
	release := flag.String("release", "release-name", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	bench := flag.Int("bench", 0, "render this many times and print the mean time")
	flag.Var(&files, "f", "values file (repeatable; later files win)")
	flag.Parse()
	if *chartPath == "" {
		return fmt.Errorf("-chart is required")
	}
	c, err := loader.Load(*chartPath)
	if err != nil {
		return fmt.Errorf("loading %s: %w", *chartPath, err)
	}
	vals := map[string]interface{}{}
	for _, f := range files {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return fmt.Errorf("reading %s: %w", f, err)
		}
		vals = mergeMaps(vals, v.AsMap())
	}
	if err := chartutil.ProcessDependenciesWithMerge(c, vals); err != nil {
		return fmt.Errorf("processing dependencies: %w", err)
	}
	opts := chartutil.ReleaseOptions{Name: *release, Namespace: *namespace, Revision: 1, IsInstall: true}
	out, err := render(c, vals, opts)
	if err != nil {
		return err
	}
	if *bench <= 0 {
		return json.NewEncoder(os.Stdout).Encode(out)
	}
	start := time.Now()
	for i := 0; i < *bench; i++ {
		if _, err := render(c, vals, opts); err != nil {
			return err
		}
	}
	elapsed := time.Since(start)
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"renders":   *bench,
		"templates": len(out),
		"meanMs":    float64(elapsed.Microseconds()) / 1000 / float64(*bench),
	})
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "helm-engine:", err)
		os.Exit(1)
	}
}
