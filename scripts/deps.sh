#!/usr/bin/env bash
# Install the Debian 12 packages pyrt needs to build, test and run its demo.
# Quiet when everything is already there; needs root (or sudo) otherwise.
set -euo pipefail
pkgs=(
  build-essential cmake pkg-config git
  libcurl4-openssl-dev libarchive-dev libssl-dev libyaml-dev libjansson-dev zlib1g-dev
  libncurses-dev libcriterion-dev
  openssl ca-certificates python3 python3.11 python3-pip-whl
  libarchive-tools tmux hyperfine
  clang valgrind
  python3-docx python3-lxml python3-openpyxl python3-et-xmlfile python3-pil
  python3-reportlab python3-reportlab-accel python3-renderpm
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
