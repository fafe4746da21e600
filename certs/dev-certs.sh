#!/usr/bin/env bash
# Mints a development CA and a webhook serving certificate with openssl, for
# running `template-sync webhook` on a workstation or pointing a test API
# server at it. Not for production: the chart issues real certificates
# (cert-manager or the webhook's self-managed mode).
#
# usage: certs/dev-certs.sh OUT_DIR [NAMESPACE] [SERVICE]
#   OUT_DIR    created if missing; existing files are replaced
#   NAMESPACE  default template-sync
#   SERVICE    default template-sync-webhook
#
# Writes ca.crt, ca.key, tls.crt, tls.key. The serving certificate is valid
# for localhost, 127.0.0.1, ::1, SERVICE.NAMESPACE.svc and
# SERVICE.NAMESPACE.svc.cluster.local (plus SERVICE and SERVICE.NAMESPACE).
set -euo pipefail

if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  [[ $# -lt 1 ]] && exit 2 || exit 0
fi

out="$1"
ns="${2:-template-sync}"
svc="${3:-template-sync-webhook}"
ca_days="${CA_DAYS:-365}"
days="${CERT_DAYS:-90}"

command -v openssl >/dev/null || { echo "dev-certs: openssl not found" >&2; exit 1; }
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
umask 077

# ECDSA P-256, like the self-managed mode.
openssl ecparam -name prime256v1 -genkey -noout -out "$work/ca.key" 2>/dev/null
openssl req -x509 -new -key "$work/ca.key" -sha256 -days "$ca_days" \
  -subj "/CN=template-sync-dev-ca" \
  -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
  -addext "keyUsage=critical,digitalSignature,keyCertSign,cRLSign" \
  -addext "subjectKeyIdentifier=hash" \
  -out "$work/ca.crt"

openssl ecparam -name prime256v1 -genkey -noout -out "$work/tls.key" 2>/dev/null
openssl req -new -key "$work/tls.key" -subj "/CN=$svc.$ns.svc" -out "$work/tls.csr"
cat >"$work/tls.ext" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,DNS:$svc,DNS:$svc.$ns,DNS:$svc.$ns.svc,DNS:$svc.$ns.svc.cluster.local
EOF
openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" \
  -set_serial "0x$(openssl rand -hex 16)" -days "$days" -sha256 \
  -extfile "$work/tls.ext" -out "$work/tls.crt" 2>/dev/null

openssl verify -CAfile "$work/ca.crt" "$work/tls.crt" >/dev/null

for f in ca.crt ca.key tls.crt tls.key; do
  cp "$work/$f" "$out/$f"
done
chmod 600 "$out/ca.key" "$out/tls.key"
chmod 644 "$out/ca.crt" "$out/tls.crt"

echo "dev-certs: wrote to $out:"
echo "  ca.crt   development CA (valid $ca_days days); use as caBundle: base64 -w0 $out/ca.crt"
echo "  ca.key   its key (keep it local)"
echo "  tls.crt  serving certificate (valid $days days) for:"
openssl x509 -in "$out/tls.crt" -noout -ext subjectAltName | tail -n +2 | sed 's/^ */             /'
echo "  tls.key  its key"
echo "run: template-sync webhook --cert-dir $out ..."
