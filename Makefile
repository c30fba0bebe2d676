# gpurent - plain Makefile, pkg-config for dependencies.
#   make            build build/gpurent
#   make check      build and run every test, then again under ASan+UBSan
#   make demo       install missing packages (as root), build, run the main job
#   make asan       sanitizer build in build/asan
# BUILD selects the output directory; SAN=1 adds the sanitizers.

BUILD   ?= build
SAN     ?=
CC      ?= cc
PKGS    := yaml-0.1 libxxhash sqlite3
# Headers only: libcurl is loaded with dlopen when a stop URL fires, and
# libcrypto when SHA-256 is asked for, so that the guard (`gpurent run`)
# stays small and the binary runs without them.
DLOPEN_PKGS := libcurl libcrypto
VERSION := 0.1.0

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wpointer-arith -Wformat=2 -Wundef -Wcast-align -Wwrite-strings \
           -Wvla -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c17 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) \
           -DGPURENT_VERSION='"$(VERSION)"' $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS) 2>/dev/null) -pthread
LDFLAGS += -pthread
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -ldl
ifeq ($(SAN),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

CORE_SRC := $(sort $(wildcard src/core/*.c))
# The command layer: commands (src/cmd), their shared library (src/cli),
# the guard (src/guard), OS helpers (src/os) and hardware loaders (src/hw).
LAYER_DIRS := src/cmd src/cli src/guard src/os src/hw
CMD_SRC  := $(sort $(foreach d,$(LAYER_DIRS),$(wildcard $(d)/*.c)))
DATA     := $(sort $(wildcard data/*.csv))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/src/main.o $(BUILD)/obj/embedded.o
# src/store: SQLite-backed storage (the ledger), in the binary and the unit tests.
STORE_SRC := $(sort $(wildcard src/store/*.c))
STORE_OBJ := $(STORE_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ  += $(STORE_OBJ)
# The OS helpers whose logic the unit tests reach through a fake root
# (src/os/sys.c: cgroup quotas under $GPURENT_CGROUP_ROOT).
UNIT_OS_OBJ := $(BUILD)/obj/src/os/sys.o
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all check test unit cli asan demo deps clean install
all: $(BUILD)/gpurent

$(BUILD)/gpurent: $(CMD_OBJ) $(CORE_OBJ)
	@echo '  LINK    $@'
	@$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/%.o: %.c $(wildcard src/core/*.h $(addsuffix /*.h,$(LAYER_DIRS)) include/*.h)
	@mkdir -p $(dir $@)
	@echo '  CC      $<'
	@$(CC) $(CFLAGS) -c -o $@ $<

$(CMD_OBJ): $(wildcard src/store/*.h)

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
$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(CORE_OBJ) $(STORE_OBJ) $(UNIT_OS_OBJ)
	@mkdir -p $(dir $@)
	@echo '  TEST    $@'
	@$(CC) $(CFLAGS) $(shell pkg-config --cflags cmocka 2>/dev/null) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(STORE_OBJ) $(UNIT_OS_OBJ) \
	    $(shell pkg-config --libs cmocka 2>/dev/null) $(LDLIBS)

unit: $(UNIT_BIN) $(BUILD)/embedded.c
	@fail=0; for t in $(UNIT_BIN); do \
	    GPURENT_ROOT=$(CURDIR) $$t || fail=1; done; test $$fail = 0

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
$(BUILD)/progs/%: tests/progs/%.c include/gpurent_ckpt.h src/hw/nvml.c src/hw/nvml.h
	@mkdir -p $(dir $@)
	@echo '  PROG    $@'
	@$(CC) -std=c17 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g $(WARN) -Iinclude -o $@ $< -ldl

# Every tests/cli/*.sh runs against the real binary and ends with
# "<name>: N passed, M failed".
cli: $(BUILD)/gpurent $(FAKE_LIB) $(PROG_BIN)
	@fail=0; for t in $(sort $(wildcard tests/cli/*.sh)); do \
	    GPURENT=$(CURDIR)/$(BUILD)/gpurent sh $$t || fail=1; done; test $$fail = 0

test: unit cli

check: deps
	@$(MAKE) --no-print-directory test
	@echo "== again under AddressSanitizer + UndefinedBehaviorSanitizer =="
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=1 test
	@echo "check: all test suites passed (plain and sanitized)"

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

clean:
	rm -rf build
