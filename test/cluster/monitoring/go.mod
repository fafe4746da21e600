// The Prometheus Operator's CRDs (ServiceMonitor, PodMonitor, PrometheusRule),
// taken from its module as test/cluster/build.sh target monitoring-crds, so the
// chart tests can install them and validate the chart's monitoring objects.
// Nothing imports the module: do not run go mod tidy here.
module testcluster/monitoring

go 1.26.0

require github.com/prometheus-operator/prometheus-operator v0.85.0
