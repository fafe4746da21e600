#!/usr/bin/env bash
# Builds the local control-plane binaries (kube-apiserver, kube-controller-manager,
# kube-scheduler, etcd, kwok for simulated nodes, helm v3 and v4), the Go
# template oracle, the Helm engine program, the test OCI registry and
# Prometheus's promtool from the committed tool modules, and takes the
# Prometheus Operator's CRDs from its module (monitoring-crds).
# Each binary is rebuilt only when the go.sum of its module (and, for programs
# of our own, their Go sources) changed since the last successful build (the
# hash is stored next to the binary).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${TEMPLATE_SYNC_BIN_DIR:-$here/bin}"
mkdir -p "$bin"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath

KV=v1.37.2
KMIN=37
KLD="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  KLD="$KLD -X $p.gitVersion=$KV -X $p.gitMajor=1 -X $p.gitMinor=$KMIN -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done

# build NAME MODULE_DIR PACKAGE LDFLAGS [SOURCE_DIR]
# SOURCE_DIR (relative to MODULE_DIR) holds Go sources of our own that are part
# of the hash, so editing them rebuilds the binary.
build() {
  local name="$1" mod="$2" pkg="$3" ld="$4" src="${5:-}"
  local stamp="$bin/.$name.sum" want
  local inputs=("$here/$mod/go.sum" "$here/$mod/go.mod")
  [[ -n "$src" ]] && inputs+=("$here/$mod/$src"/*.go)
  want="$(cat "${inputs[@]}" | sha256sum | cut -d' ' -f1)"
  if [[ -x "$bin/$name" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "build: $name up to date"
    return
  fi
  local t0=$SECONDS
  echo "build: $name from $mod ($pkg) ..."
  (cd "$here/$mod" && go build -ldflags "$ld" -o "$bin/$name.tmp" "$pkg")
  mv "$bin/$name.tmp" "$bin/$name"
  echo "$want" > "$stamp"
  echo "build: $name built in $((SECONDS - t0))s"
}

# fetch NAME MODULE_DIR MODULE FILE...
# Copies FILEs of MODULE, as required by MODULE_DIR's go.mod and verified
# against its go.sum, into $bin/NAME/.
fetch() {
  local name="$1" mod="$2" module="$3"
  shift 3
  local stamp="$bin/.$name.sum" want dir
  want="$(cat "$here/$mod/go.sum" "$here/$mod/go.mod" | sha256sum | cut -d' ' -f1)"
  if [[ -d "$bin/$name" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "build: $name up to date"
    return
  fi
  dir="$(cd "$here/$mod" && go mod download "$module" && go list -m -f '{{.Dir}}' "$module")"
  rm -rf "$bin/$name.tmp" && mkdir -p "$bin/$name.tmp"
  for f in "$@"; do cp "$dir/$f" "$bin/$name.tmp/"; done
  chmod -R u+w "$bin/$name.tmp"
  rm -rf "$bin/$name" && mv "$bin/$name.tmp" "$bin/$name"
  echo "$want" > "$stamp"
  echo "build: $name taken from $module"
}

want_all=("$@")
[[ ${#want_all[@]} -eq 0 ]] && want_all=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok helm helm4 helm-engine oci-registry gotemplate-oracle promtool monitoring-crds)
t_all=$SECONDS
for w in "${want_all[@]}"; do
  case "$w" in
    etcd) build etcd etcd go.etcd.io/etcd/server/v3 "-s -w" ;;
    kube-apiserver) build kube-apiserver kube k8s.io/kubernetes/cmd/kube-apiserver "$KLD" ;;
    kube-controller-manager) build kube-controller-manager kube k8s.io/kubernetes/cmd/kube-controller-manager "$KLD" ;;
    kube-scheduler) build kube-scheduler kube k8s.io/kubernetes/cmd/kube-scheduler "$KLD" ;;
    kwok) build kwok kwok . "-s -w" . ;;
    helm) build helm helm helm.sh/helm/v3/cmd/helm "-s -w -X helm.sh/helm/v3/internal/version.version=v3.22.0" ;;
    helm4) build helm4 helm4 helm.sh/helm/v4/cmd/helm "-s -w -X helm.sh/helm/v4/internal/version.version=v4.3.1" ;;
    helm-engine) build helm-engine helm ./engine "-s -w" engine ;;
    oci-registry) build oci-registry registry . "-s -w" . ;;
    gotemplate-oracle) [[ -f "$here/oracle/go.mod" ]] && build gotemplate-oracle oracle . "-s -w" ;;
    # remove_all_sd leaves out the service-discovery plugins (cloud SDKs), half the build; rule checks and tests need none.
    promtool) GOFLAGS="$GOFLAGS -tags=remove_all_sd" build promtool promtool github.com/prometheus/prometheus/cmd/promtool "-s -w -X github.com/prometheus/common/version.Version=3.16.0" ;;
    monitoring-crds)
      crd=example/prometheus-operator-crd
      fetch monitoring-crds monitoring github.com/prometheus-operator/prometheus-operator \
        "$crd/monitoring.coreos.com_servicemonitors.yaml" "$crd/monitoring.coreos.com_podmonitors.yaml" \
        "$crd/monitoring.coreos.com_prometheusrules.yaml"
      ;;
    *) echo "build: unknown target $w" >&2; exit 2 ;;
  esac
done
echo "build: all done in $((SECONDS - t_all))s"
