#!/bin/sh
# deps.sh - make sure the Debian/Ubuntu packages gpurent builds with are
# installed. As root it installs what is missing; otherwise it prints the
# exact apt-get line and fails.
set -u
pkgs=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
command -v cc >/dev/null 2>&1 || pkgs="$pkgs gcc libc6-dev"
command -v make >/dev/null 2>&1 || pkgs="$pkgs make"
command -v pkg-config >/dev/null 2>&1 || pkgs="$pkgs pkg-config"
have_pc yaml-0.1 || pkgs="$pkgs libyaml-dev"
have_pc cmocka || pkgs="$pkgs libcmocka-dev"
[ -z "$pkgs" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$pkgs"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $pkgs >/dev/null || {
		echo "deps: apt-get install$pkgs failed" >&2; exit 1; }
	exit 0
fi
echo "deps: missing packages; run:" >&2
echo "  sudo apt-get install -y$pkgs" >&2
exit 1
