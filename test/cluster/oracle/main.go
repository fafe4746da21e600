// Command gotemplate-oracle renders Go text/template + Sprig cases with the real
// Go libraries so the TypeScript engine in src/gotemplate can be compared with
// them byte for byte.
//
// Default mode: a JSON array of {name, template, data} on stdin, a JSON array of
// {name, output} or {name, errorClass, error} on stdout.
//
// Bench mode: -bench N -template FILE -data FILE renders N times and prints one
// JSON line with the mean time per render.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
)

type testCase struct {
	Name     string          `json:"name"`
	Template string          `json:"template"`
	Data     json.RawMessage `json:"data,omitempty"`
}

type result struct {
	Name       string  `json:"name"`
	Output     *string `json:"output,omitempty"`
	ErrorClass string  `json:"errorClass,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// Functions the operator removes because they leak the environment or reach the network.
var excluded = []string{"env", "expandenv", "getHostByName"}

func funcs() template.FuncMap {
	fm := sprig.TxtFuncMap()
	for _, name := range excluded {
		delete(fm, name)
	}
	return fm
}

func parse(name, text string) (*template.Template, error) {
	return template.New(name).Funcs(funcs()).Option("missingkey=error").Parse(text)
}

func decodeData(raw json.RawMessage) (interface{}, error) {
	var data interface{}
	if len(raw) == 0 {
		return nil, nil
	}
	err := json.Unmarshal(raw, &data)
	return data, err
}

// render never panics: text/template already turns panics in called functions
// into errors, and anything else is reported as an execution error.
func render(c testCase) (r result) {
	r.Name = c.Name
	tmpl, err := parse(c.Name, c.Template)
	if err != nil {
		r.ErrorClass, r.Error = "parse", err.Error()
		return r
	}
	data, err := decodeData(c.Data)
	if err != nil {
		r.ErrorClass, r.Error = "data", err.Error()
		return r
	}
	defer func() {
		if p := recover(); p != nil {
			r.Output = nil
			r.ErrorClass, r.Error = "exec", fmt.Sprintf("panic: %v", p)
		}
	}()
	var out bytes.Buffer
	if err := tmpl.Execute(&out, data); err != nil {
		r.ErrorClass, r.Error = "exec", err.Error()
		return r
	}
	s := out.String()
	r.Output = &s
	return r
}

func runCases(in io.Reader, out io.Writer) error {
	var cases []testCase
	if err := json.NewDecoder(in).Decode(&cases); err != nil {
		return fmt.Errorf("reading cases: %w", err)
	}
	results := make([]result, 0, len(cases))
	for _, c := range cases {
		results = append(results, render(c))
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	return enc.Encode(results)
}

func runBench(n int, templateFile, dataFile string) error {
	text, err := os.ReadFile(templateFile)
	if err != nil {
		return err
	}
	var raw []byte
	if dataFile != "" {
		if raw, err = os.ReadFile(dataFile); err != nil {
			return err
		}
	}
	data, err := decodeData(raw)
	if err != nil {
		return err
	}
	tmpl, err := parse("bench", string(text))
	if err != nil {
		return err
	}
	var out bytes.Buffer
	start := time.Now()
	for i := 0; i < n; i++ {
		out.Reset()
		if err := tmpl.Execute(&out, data); err != nil {
			return err
		}
	}
	elapsed := time.Since(start)
	return json.NewEncoder(os.Stdout).Encode(map[string]interface{}{
		"renders":      n,
		"nsPerRender":  elapsed.Nanoseconds() / int64(n),
		"outputBytes":  out.Len(),
		"totalSeconds": elapsed.Seconds(),
	})
}

func main() {
	bench := flag.Int("bench", 0, "render the template this many times and print the time per render")
	templateFile := flag.String("template", "", "template file (bench mode)")
	dataFile := flag.String("data", "", "JSON data file (bench mode)")
	flag.Parse()
	// "Local" must mean the same zone on every machine so that date functions are comparable.
	time.Local = time.UTC
	var err error
	if *bench > 0 {
		if *templateFile == "" {
			err = fmt.Errorf("-bench needs -template")
		} else {
			err = runBench(*bench, *templateFile, *dataFile)
		}
	} else {
		err = runCases(os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotemplate-oracle:", strings.TrimSpace(err.Error()))
		os.Exit(1)
	}
}
