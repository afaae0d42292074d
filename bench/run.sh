#!/usr/bin/env bash
# One command for the side-by-side benchmark (docs/performance.md):
# installs the baselines (numpy and PyTorch on OpenBLAS, from Debian;
# ONNX Runtime from npm, run by node),
# builds, and prints the table. Flags go to bench/bench.py
# (--quick, --json FILE, --only NAME, --threads 1,2, --flags "-O3").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
PACKAGES=(python3-numpy python3-torch libopenblas0-pthread)
missing=()
# node and npm for ONNX Runtime, from Debian unless some node is there.
command -v npm >/dev/null || PACKAGES+=(nodejs npm)
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y "${missing[@]}" \
    || { $SUDO apt-get update && $SUDO apt-get install -y "${missing[@]}"; }
fi
# ONNX Runtime's CPU execution provider, from npm (onnxruntime-node; its
# install script only fetches GPU providers, hence --ignore-scripts).
if command -v npm >/dev/null && [ ! -d bench/.ort/node_modules/onnxruntime-node ]; then
  npm install --prefix bench/.ort --ignore-scripts --no-audit --no-fund \
    onnxruntime-node >/dev/null \
    || echo "warning: onnxruntime-node not installed; no ONNX Runtime baseline" >&2
fi
bash scripts/build.sh >/dev/null
exec /usr/bin/python3 bench/bench.py "$@"
