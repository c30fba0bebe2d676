/*
 * quote.c - escaping and shortening user text for error messages
 * (quote.h). Used by every parser that echoes what it was given.
 */
#include "base/quote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int quote_has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_ctl((unsigned char)s[i]))
			return 1;
	return 0;
}

char *quote_value_n(const char *s, size_t len, char *out, size_t n)
{
	size_t j = 0, i = 0, keep = len;
	int cut = 0;

	if (!n)
		return out;
	if (keep > QUOTE_KEEP) {
		keep = QUOTE_KEEP;
		/* back up to the start of a UTF-8 sequence */
		while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
			keep--;
		cut = 1;
	}
	for (; i < keep; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_ctl(c)) {
			if (j + 5 > n)
				break;
			snprintf(out + j, 5, "\\x%02x", c);
			j += 4;
		} else {
			if (j + 2 > n)
				break;
			out[j++] = (char)c;
		}
	}
	if ((cut || i < keep) && j + 4 <= n) {
		memcpy(out + j, "\xE2\x80\xA6", 3);   /* … */
		j += 3;
	}
	out[j] = '\0';
	return out;
}

char *quote_value(const char *s, char *out, size_t n)
{
	return quote_value_n(s ? s : "", s ? strlen(s) : 0, out, n);
}

void quote_message(char *msg, size_t n)
{
	size_t len = strlen(msg), nctl = 0;
	char *copy;

	for (size_t i = 0; i < len; i++)
		nctl += is_ctl((unsigned char)msg[i]);
	if (!nctl)
		return;
	copy = strdup(msg);
	if (!copy) {   /* cannot escape: blank them rather than pass them on */
		for (size_t i = 0; i < len; i++)
			if (is_ctl((unsigned char)msg[i]))
				msg[i] = '?';
		return;
	}
	{
		size_t j = 0;
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)copy[i];
			if (is_ctl(c)) {
				if (j + 5 > n)
					break;
				snprintf(msg + j, 5, "\\x%02x", c);
				j += 4;
			} else {
				if (j + 2 > n)
					break;
				msg[j++] = (char)c;
			}
		}
		msg[j] = '\0';
	}
	free(copy);
}

size_t quote_utf8_at(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t v, min;

	if (s[0] < 0x80) {
		if (cp)
			*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, v = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, v = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, v = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	if (cp)
		*cp = v;
	return len;
}
