#!/usr/bin/env bash
# Installs what transformer-mlir needs from Debian's archive (idempotent).
set -euo pipefail

PACKAGES=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22
          clang-format-22 ninja-build cmake ccache python3-numpy libomp-22-dev
          python3-torch libopenblas0-pthread)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y "${missing[@]}" \
  || { $SUDO apt-get update && $SUDO apt-get install -y "${missing[@]}"; }
