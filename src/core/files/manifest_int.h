/*
 * manifest_int.h - internal to manifest.c and manifest_parse.c; not a
 * public interface (callers use manifest.h): the magic lines of the gpurent
 * and hashdeep formats, which the renderer writes and the parser expects.
 */
#ifndef GPURENT_MANIFEST_INT_H
#define GPURENT_MANIFEST_INT_H

#define GPURENT_MAGIC "# gpurent manifest"
#define GPURENT_VERSION_NUM 1
#define HASHDEEP_MAGIC "%%%% HASHDEEP-1.0"

#endif
