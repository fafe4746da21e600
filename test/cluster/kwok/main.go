// kwok for the test control plane: simulated nodes that report Ready and pods
// that run (and Jobs' pods that complete) without a kubelet, so that the
// cluster's own controllers reach their usual states. It runs kwok's command
// with kwok's own "fast" stages (node init and heartbeat; pod ready, complete
// and delete), written to a config file first, so no stage file is kept here.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

func main() {
	stages := []string{
		nodefast.DefaultNodeInit,
		nodeheartbeat.DefaultNodeHeartbeat,
		podfast.DefaultPodReady,
		podfast.DefaultPodComplete,
		podfast.DefaultPodDelete,
	}
	file, err := os.CreateTemp("", "kwok-stages-*.yaml")
	if err == nil {
		_, err = file.WriteString(strings.Join(stages, "\n---\n"))
		_ = file.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kwok: writing its stages: %v\n", err)
		os.Exit(1)
	}
	defer os.Remove(file.Name())
	os.Args = append(os.Args, "--config="+file.Name())

	global := pflag.NewFlagSet("global", pflag.ContinueOnError)
	global.ParseErrorsAllowlist.UnknownFlags = true
	global.Usage = func() {}
	ctx := signals.SetupSignalContext()
	ctx, logger := log.InitFlags(ctx, global)
	ctx, err = config.InitFlags(ctx, global)
	if err != nil {
		logger.Error("kwok: config flags", "err", err)
		os.Exit(1)
	}
	command := cmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(global)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("kwok: exit", "err", err)
		os.Exit(1)
	}
}
