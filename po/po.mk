# po/po.mk - the message catalogs (GNU gettext), included by the Makefile.
#   make pot         extract every _() / N_() / Q_() of src/ into po/gpurent.pot
#   make po-update   merge po/gpurent.pot into each po/LANG.po (msgmerge)
#   make             also compiles po/LANG.po into $(BUILD)/locale/LANG/LC_MESSAGES/gpurent.mo
#   make install     installs them under $(PREFIX)/share/locale
# Without msgfmt the binary still builds (and speaks English); the .mo step
# says so. The runtime is glibc's; GPURENT_LOCALEDIR overrides the directory.

PO_LANGS   := zh_CN
PO_SRC     := $(shell LC_ALL=C ls src/*.c src/*/*.c src/*/*/*.c 2>/dev/null)
PO_MO      := $(PO_LANGS:%=$(BUILD)/locale/%/LC_MESSAGES/gpurent.mo)
XGETTEXT   ?= xgettext
MSGFMT     ?= msgfmt
MSGMERGE   ?= msgmerge
LOCALEDIR  ?= $(PREFIX)/share/locale

# The compiled-in default of msg_init() (src/kit/msg.c).
$(BUILD)/obj/src/kit/msg.o: CFLAGS += -DGPURENT_LOCALEDIR='"$(LOCALEDIR)"'

.PHONY: pot po-update mo install-mo
all: mo
mo: $(PO_MO)

pot:
	@$(XGETTEXT) --keyword=_ --keyword=N_ --keyword=Q_:1,2 --from-code=UTF-8 \
	    --add-comments=TRANSLATORS --package-name=gpurent --package-version=$(VERSION) \
	    --sort-by-file -o po/gpurent.pot $(PO_SRC)
	@echo "pot: $$(grep -c '^msgid ' po/gpurent.pot) messages in po/gpurent.pot"

po-update: pot
	@for l in $(PO_LANGS); do \
	    $(MSGMERGE) --quiet --update --backup=none --no-fuzzy-matching po/$$l.po po/gpurent.pot || exit 1; \
	    echo "po-update: po/$$l.po: $$($(MSGFMT) --statistics -o /dev/null po/$$l.po 2>&1)"; done

$(BUILD)/locale/%/LC_MESSAGES/gpurent.mo: po/%.po
	@mkdir -p $(dir $@)
	@if command -v $(MSGFMT) >/dev/null 2>&1; then \
	    echo '  MSGFMT  $@'; $(MSGFMT) --check -o $@ $<; \
	else echo "  MSGFMT  $@: skipped, msgfmt not installed (apt-get install gettext); messages stay English"; fi

install-mo: mo
	@for l in $(PO_LANGS); do mo=$(BUILD)/locale/$$l/LC_MESSAGES/gpurent.mo; \
	    [ -f $$mo ] || { echo "install: $$mo not built (no msgfmt): skipped"; continue; }; \
	    install -d $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES && \
	    install -m 644 $$mo $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/gpurent.mo || exit 1; done
install: install-mo

# The i18n test reads the catalogs of this build (GPURENT_LOCALEDIR).
cli-i18n: $(PO_MO)
