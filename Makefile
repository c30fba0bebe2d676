# gpurent - plain Makefile, pkg-config for dependencies.
#   make            build build/gpurent
#   make check      build and run every test, then again under ASan+UBSan
#   make demo       install missing packages (as root), build, run the main job
#   make asan       sanitizer build in build/asan
# BUILD selects the output directory; SAN=1 adds the sanitizers.

BUILD   ?= build
SAN     ?=
CC      ?= cc
PKGS    := yaml-0.1 libxxhash
# Headers only: libcurl is loaded with dlopen when a stop URL fires,
# libcrypto when SHA-256 is asked for and libsqlite3 when a ledger is
# opened (src/store/sqlite_dl.c), so that the guard (`gpurent run`) stays
# small and the binary runs without them. The unit tests that read a
# ledger with SQLite themselves link it.
DLOPEN_PKGS := libcurl libcrypto sqlite3
VERSION := 0.1.0

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wpointer-arith -Wformat=2 -Wundef -Wcast-align -Wwrite-strings \
           -Wvla -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c17 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Isrc \
           -DGPURENT_VERSION='"$(VERSION)"' $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS) 2>/dev/null) -pthread
LDFLAGS += -pthread
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -ldl
ifeq ($(SAN),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# The floors of src/ (src/LAYERS): the ground floor (src/base) and the pure
# core (src/core/<capability>) link alone into the unit tests and fuzzers;
# the OS helpers (src/os), hardware loaders (src/hw), the guard (src/guard),
# the command kit (src/kit) and the commands (src/cmd/<capability>) make the
# binary. Includes are written from src/ (-Isrc).
CORE_SRC := $(sort $(wildcard src/base/*.c src/core/*/*.c))
LAYER_DIRS := src/cmd/* src/kit src/guard src/os src/hw
CMD_SRC  := $(sort $(foreach d,$(LAYER_DIRS),$(wildcard $(d)/*.c)))
ALL_H    := $(wildcard src/*/*.h src/*/*/*.h include/*.h)
DATA     := $(sort $(wildcard data/*.csv))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/src/main.o $(BUILD)/obj/embedded.o
# src/store: SQLite-backed storage (the ledger), in the binary and the unit tests.
STORE_SRC := $(sort $(wildcard src/store/*.c))
STORE_OBJ := $(STORE_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ  += $(STORE_OBJ)
# The OS helpers whose logic the unit tests reach through a fake root
# (src/os/sys.c: cgroup quotas under $GPURENT_CGROUP_ROOT).
UNIT_OS_OBJ := $(BUILD)/obj/src/os/sys.o $(BUILD)/obj/src/os/dl.o $(BUILD)/obj/src/os/crypto.o
# The words files (src/cmd/*/*words.c: core codes to sentences) link into the
# unit tests too, which check their sentences.
WORDS_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard src/cmd/*/*words.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all check test unit cli asan demo deps clean install stress
all: $(BUILD)/gpurent

$(BUILD)/gpurent: $(CMD_OBJ) $(CORE_OBJ)
	@echo '  LINK    $@'
	@$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/%.o: %.c $(ALL_H)
	@mkdir -p $(dir $@)
	@echo '  CC      $<'
	@$(CC) $(CFLAGS) -c -o $@ $<

# The data files travel inside the binary (used when --data-dir is absent).
$(BUILD)/embed: tools/embed.c
	@mkdir -p $(dir $@)
	@$(CC) -O1 -o $@ $<
$(BUILD)/embedded.c: $(BUILD)/embed $(DATA)
	@$(BUILD)/embed $@ $(DATA)
$(BUILD)/obj/embedded.o: $(BUILD)/embedded.c
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS) -c -o $@ $<

# Unit tests link the core alone (no I/O layer), plus src/store for the ledger's.
$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(CORE_OBJ) $(STORE_OBJ) $(UNIT_OS_OBJ) $(WORDS_OBJ)
	@mkdir -p $(dir $@)
	@echo '  TEST    $@'
	@$(CC) $(CFLAGS) $(shell pkg-config --cflags cmocka 2>/dev/null) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(STORE_OBJ) $(UNIT_OS_OBJ) $(WORDS_OBJ) \
	    $(shell pkg-config --libs cmocka sqlite3 2>/dev/null) $(LDLIBS)

unit: $(UNIT_BIN) $(BUILD)/embedded.c
	@t0=$$(date +%s); fail=0; for t in $(UNIT_BIN); do \
	    GPURENT_ROOT=$(CURDIR) $$t || fail=1; done; \
	    echo "unit: $$(($$(date +%s) - t0)) s"; test $$fail = 0

# Test doubles and helper programs for the CLI tests: a fake
# libnvidia-ml.so.1 (selected with LD_LIBRARY_PATH) and small jobs for the
# guard, built without sanitizers so they load into any binary.
FAKE_LIB  := $(BUILD)/fake/libnvidia-ml.so.1
PROG_SRC  := $(sort $(wildcard tests/progs/*.c))
PROG_BIN  := $(PROG_SRC:tests/progs/%.c=$(BUILD)/progs/%)
$(FAKE_LIB): tests/fake/fake_nvml.c
	@mkdir -p $(dir $@)
	@echo '  FAKE    $@'
	@$(CC) -std=c17 -D_POSIX_C_SOURCE=200809L -O1 -g $(WARN) -Wno-missing-prototypes \
	    -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o $@ $<
$(BUILD)/progs/%: tests/progs/%.c include/gpurent_ckpt.h src/hw/nvml.c src/hw/nvml.h src/os/dl.c src/os/dl.h src/base/i18n.c src/base/i18n.h
	@mkdir -p $(dir $@)
	@echo '  PROG    $@'
	@$(CC) -std=c17 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g $(WARN) -Iinclude -Isrc -o $@ $< src/os/dl.c src/base/i18n.c -ldl

# Every tests/cli/*.sh runs against the real binary and ends with
# "<name>: N passed, M failed", then the rule's "<name>: N s" (its wall
# time). Each script is its own target, so that `make -j2 check` runs them
# side by side; a script's output is printed whole when it ends (never
# interleaved), and a failing one fails the run. tests/cli/cases.sh runs
# the tables of tests/cli/cases/*.test (tests/cli/cases/README).
# The longest start first, so that under -jN the short ones fill the other
# slots beside them, not a tail where one script runs alone: slurm.sh
# (about 90 s, most of it waiting on its drill job), options.sh (the most
# runs of the binary, each slow to exit under ASan), run.sh and probe.sh
# (waiting on their jobs), env.sh, report.sh (Chromium) and i18n.sh.
CLI_FIRST := slurm options run probe env report i18n
CLI_SH    := $(sort $(wildcard tests/cli/*.sh))
CLI_NAMES := $(CLI_SH:tests/cli/%.sh=%)
CLI_RUNS  := $(addprefix cli-,$(foreach n,$(CLI_FIRST),$(filter $(n),$(CLI_NAMES))) \
	     $(filter-out $(CLI_FIRST),$(CLI_NAMES)))
.PHONY: $(CLI_RUNS)
cli: $(CLI_RUNS)
$(CLI_RUNS): cli-%: $(BUILD)/gpurent $(FAKE_LIB) $(PROG_BIN)
	@mkdir -p $(BUILD)/cli
	@t0=$$(date +%s); GPURENT=$(CURDIR)/$(BUILD)/gpurent sh tests/cli/$*.sh >$(BUILD)/cli/$*.log 2>&1; rc=$$?; \
	    cat $(BUILD)/cli/$*.log; echo "$*: $$(($$(date +%s) - t0)) s"; exit $$rc

test: unit cli fuzz-replay

# JOBS: how many test scripts run at once (JOBS=N make check). 3 on 2 cores:
# slurm.sh, run.sh and probe.sh spend most of their time waiting on their
# jobs (the Slurm drill alone about 75 s), and a third slot keeps both
# cores busy meanwhile.
JOBS ?= 3
check: deps
	@$(MAKE) --no-print-directory -k -j$(JOBS) test
	@echo "== again under AddressSanitizer + UndefinedBehaviorSanitizer =="
	@$(MAKE) --no-print-directory -k -j$(JOBS) BUILD=build/asan SAN=1 test
	@echo "check: all test suites passed (plain and sanitized)"

# The --hard-deadline watchdog against a guard SIGKILLed at every moment of
# its start, 50 times under `stress-ng --cpu 4` (a SKIP line without it).
stress: $(BUILD)/gpurent
	@GPURENT=$(CURDIR)/$(BUILD)/gpurent sh bench/stress-watchdog.sh 50

asan:
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=1 all

deps:
	@sh tools/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	$(BUILD)/gpurent plan examples/lora-7b.yaml

PREFIX ?= /usr/local
install: $(BUILD)/gpurent
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/gpurent $(DESTDIR)$(PREFIX)/bin/gpurent
	install -m 644 docs/gpurent.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpurent.1
	install -d $(DESTDIR)$(PREFIX)/share/man/zh_CN/man1
	install -m 644 docs/gpurent.zh_CN.1 $(DESTDIR)$(PREFIX)/share/man/zh_CN/man1/gpurent.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(BUILD)/gpurent completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/gpurent
	$(BUILD)/gpurent completion zsh >$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_gpurent
	$(BUILD)/gpurent completion fish >$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/gpurent.fish

clean:
	rm -rf build

# ---- fuzzing (tests/fuzz, CONTRIBUTING.md "Fuzzing") ----
#   make fuzz          every harness under libFuzzer for FUZZ_TIME seconds each
#                      (crashes: build/fuzz/crashes/NAME/; FUZZ_MERGE=1 merges
#                      new inputs into tests/fuzz/corpus/NAME)
#   make fuzz-replay   every harness's corpus and regress inputs through a plain
#                      main() built with $(CC) (part of `make test`)
# A harness is tests/fuzz/fuzz_NAME.c; its seeds tests/fuzz/corpus/NAME/, the
# inputs that once failed tests/fuzz/regress/NAME/ (tests/fuzz/pending/ holds
# the ones whose bug is not fixed yet: not replayed).
FUZZ_SRC    := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES  := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_TIME   ?= 60
FUZZ_MERGE  ?=
FUZZ_CC     ?= clang
FUZZ_FLAGS  ?=
FUZZ_DIR    := build/fuzz
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c17 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Isrc -O1 -g -pthread $(FUZZ_SAN) \
               $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS) 2>/dev/null) $(FUZZ_FLAGS)
FUZZ_OBJ    := $(CORE_SRC:%.c=$(FUZZ_DIR)/obj/%.o) $(FUZZ_DIR)/obj/embedded.o
FUZZ_BIN    := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
REPLAY_BIN  := $(FUZZ_NAMES:%=$(BUILD)/fuzz-replay/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-replay
.SECONDARY: $(FUZZ_OBJ)
# fuzz_sky_task.c includes fuzz_workload.c, and others may share code so.
$(FUZZ_BIN) $(REPLAY_BIN): $(FUZZ_SRC) $(wildcard tests/fuzz/*.h)

# The core with coverage for libFuzzer (no -Werror: clang's warnings are not gcc's).
$(FUZZ_DIR)/obj/%.o: %.c $(ALL_H)
	@mkdir -p $(dir $@)
	@echo '  FUZZCC  $<'
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
$(FUZZ_DIR)/obj/embedded.o: $(BUILD)/embedded.c
	@mkdir -p $(dir $@)
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	@echo '  FUZZER  $@'
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(WARN) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(LDLIBS)

fuzz-build: $(FUZZ_BIN)

# Each harness runs on a copy of its corpus (plus its regress inputs), so the
# repository's corpus changes only with FUZZ_MERGE=1.
fuzz: fuzz-build
	@rm -rf $(FUZZ_DIR)/work; fail=""; \
	for n in $(FUZZ_NAMES); do \
	    w=$(FUZZ_DIR)/work/$$n; c=$(FUZZ_DIR)/crashes/$$n; mkdir -p $$w $$c $(FUZZ_DIR)/log; \
	    cp tests/fuzz/corpus/$$n/* $$w/ 2>/dev/null; \
	    r=; [ -d tests/fuzz/regress/$$n ] && r=tests/fuzz/regress/$$n; \
	    echo "  FUZZ    $$n ($(FUZZ_TIME) s)"; \
	    if ! $(FUZZ_DIR)/fuzz_$$n -max_total_time=$(FUZZ_TIME) -rss_limit_mb=2048 -timeout=10 \
	        -print_final_stats=1 -artifact_prefix=$$c/ $$w $$r >$(FUZZ_DIR)/log/$$n.log 2>&1; then \
	        fail="$$fail $$n"; grep -m1 -A12 'ERROR\|invariant violated\|Test unit written' $(FUZZ_DIR)/log/$$n.log; fi; \
	    awk -v n=$$n '/stat::number_of_executed_units/ {e=$$2} /stat::average_exec_per_sec/ {s=$$2} \
	        END {printf "          %s: %s executions, %s/s\n", n, e, s}' $(FUZZ_DIR)/log/$$n.log; \
	    if [ "$(FUZZ_MERGE)" = 1 ]; then mkdir -p tests/fuzz/corpus/$$n; \
	        $(FUZZ_DIR)/fuzz_$$n -merge=1 -rss_limit_mb=2048 -timeout=10 tests/fuzz/corpus/$$n $$w \
	            >>$(FUZZ_DIR)/log/$$n.log 2>&1 || fail="$$fail $$n(merge)"; fi; \
	done; \
	if [ -n "$$fail" ]; then echo "fuzz: failed:$$fail (inputs in $(FUZZ_DIR)/crashes/, logs in $(FUZZ_DIR)/log/)"; exit 1; fi; \
	echo "fuzz: $(words $(FUZZ_NAMES)) harnesses, no crash"

# The same harnesses with the normal compiler and flags (SAN=1 included).
$(BUILD)/fuzz-replay/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(CORE_OBJ) $(BUILD)/obj/embedded.o
	@mkdir -p $(dir $@)
	@echo '  REPLAY  $@'
	@$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c $(CORE_OBJ) $(BUILD)/obj/embedded.o $(LDLIBS)

fuzz-replay: $(REPLAY_BIN)
	@t0=$$(date +%s); fail=0; total=0; for n in $(FUZZ_NAMES); do \
	    set -- $$(find tests/fuzz/corpus/$$n tests/fuzz/regress/$$n -type f 2>/dev/null | LC_ALL=C sort); \
	    total=$$((total + $$#)); \
	    [ $$# = 0 ] || $(BUILD)/fuzz-replay/fuzz_$$n "$$@" || { fail=1; for f; do \
	        $(BUILD)/fuzz-replay/fuzz_$$n "$$f" >/dev/null 2>&1 || echo "fuzz-replay: $$n: $$f fails"; done; }; \
	done; test $$fail = 0 && echo "fuzz-replay: $(words $(FUZZ_NAMES)) harnesses, $$total inputs replayed"; \
	echo "fuzz-replay: $$(($$(date +%s) - t0)) s"; test $$fail = 0
include po/po.mk
