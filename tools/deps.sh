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
have_pc libxxhash || pkgs="$pkgs libxxhash-dev"
have_pc libcrypto || pkgs="$pkgs libssl-dev"
have_pc sqlite3 || pkgs="$pkgs libsqlite3-dev"
# libcurl for `gpurent run --stop-url`; either TLS flavour satisfies pkg-config.
have_pc libcurl || pkgs="$pkgs libcurl4-openssl-dev"
# Tools the manifest tests check interoperability with (tests SKIP without them).
tools=""
command -v sha256sum >/dev/null 2>&1 || tools="$tools coreutils"
command -v hashdeep >/dev/null 2>&1 || tools="$tools hashdeep"
command -v xxhsum >/dev/null 2>&1 || tools="$tools xxhash"
command -v b3sum >/dev/null 2>&1 || tools="$tools b3sum"
# python3 reads the JSON, CSV and YAML the CLI tests check (SKIP lines without it).
command -v python3 >/dev/null 2>&1 || tools="$tools python3"
{ python3 -c "import yaml" 2>/dev/null || dpkg -s python3-yaml >/dev/null 2>&1; } || tools="$tools python3-yaml"
# python3-jsonschema checks every task plan --emit sky writes against SkyPilot's schema
# (tests/data/skypilot-task.schema.json; tests/cli/emit.sh SKIPs without it).
{ python3 -c "import jsonschema" 2>/dev/null || dpkg -s python3-jsonschema >/dev/null 2>&1; } || tools="$tools python3-jsonschema"
# The ledger tests read the database with the sqlite3 shell (SKIP without it).
command -v sqlite3 >/dev/null 2>&1 || tools="$tools sqlite3"
# Headless Chromium renders `gpurent report` in tests/cli/report.sh (SKIP without it).
command -v chromium >/dev/null 2>&1 || tools="$tools chromium"
# ... and a font with Chinese glyphs, so its screenshots show tags like 中文 (not boxes).
{ command -v fc-list >/dev/null 2>&1 && fc-list :lang=zh | grep -q .; } || tools="$tools fonts-wqy-microhei"
# ps/pgrep for the guard tests' orphan checks.
command -v pgrep >/dev/null 2>&1 || tools="$tools procps"
# ssh-keygen: tests/cli/release.sh plants a real unencrypted key (SKIP without it).
command -v ssh-keygen >/dev/null 2>&1 || tools="$tools openssh-client"
# zsh and fish, to check the completion scripts for them (SKIP without them).
command -v zsh >/dev/null 2>&1 || tools="$tools zsh"
command -v fish >/dev/null 2>&1 || tools="$tools fish"
# A private one-node Slurm cluster for tests/cli/slurm.sh (SKIP without the daemons).
command -v slurmctld >/dev/null 2>&1 || tools="$tools slurmctld"
command -v slurmd >/dev/null 2>&1 || tools="$tools slurmd"
command -v sbatch >/dev/null 2>&1 || tools="$tools slurm-client"
command -v munged >/dev/null 2>&1 || tools="$tools munge"
# msgfmt builds the zh_CN message catalog (po/zh_CN.po); without it messages stay English.
command -v msgfmt >/dev/null 2>&1 || tools="$tools gettext"
# groff checks that both manual pages (English and zh_CN) format without a warning.
command -v groff >/dev/null 2>&1 || tools="$tools groff-base"
# tmux gives tests/cli/progress.sh a terminal to see the progress line on.
command -v tmux >/dev/null 2>&1 || tools="$tools tmux"
# The zh_CN.UTF-8 locale for the translation tests (tests/cli/i18n.sh, config.sh).
need_locale=0
locale -a 2>/dev/null | grep -qix 'zh_CN\.utf-\{0,1\}8' || { need_locale=1; command -v localedef >/dev/null 2>&1 || tools="$tools locales"; }
# clang and its libFuzzer runtime for `make fuzz` (CI runs it; `make check` does not need them).
command -v clang >/dev/null 2>&1 || tools="$tools clang"
clang_major=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1)
ls /usr/lib/llvm-${clang_major:-14}/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
	tools="$tools libclang-rt-${clang_major:-14}-dev"
# zh_CN.UTF-8 from glibc's locale sources (as root; a no-op when it exists)
make_locale() {
	[ "$need_locale" = 1 ] && [ "$(id -u)" = 0 ] && command -v localedef >/dev/null 2>&1 &&
		{ localedef -i zh_CN -f UTF-8 zh_CN.UTF-8 2>/dev/null || echo "deps: could not make the zh_CN.UTF-8 locale" >&2; }
	return 0
}
[ -z "$pkgs$tools" ] && { make_locale; exit 0; }
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$pkgs$tools"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $pkgs >/dev/null || {
		echo "deps: apt-get install$pkgs failed" >&2; exit 1; }
	# the test tools all at once, else one by one: one that cannot be had
	# does not keep the others out (its tests then say SKIP)
	if [ -n "$tools" ] && ! apt-get install -y -qq --no-install-recommends $tools >/dev/null 2>&1; then
		for t in $tools; do
			apt-get install -y -qq --no-install-recommends "$t" >/dev/null 2>&1 ||
				echo "deps: could not install $t; its tests will be skipped" >&2
		done
	fi
	make_locale
	exit 0
fi
[ -z "$pkgs" ] && { echo "deps: optional, for interoperability tests: apt-get install$tools" >&2; exit 0; }
echo "deps: missing packages; run:" >&2
echo "  sudo apt-get install -y$pkgs" >&2
exit 1
