/*
 * hot.h - GPURENT_HOT marks the functions `gpurent run` calls on every
 * poll tick. GCC and Clang put such functions together in .text.hot, so
 * a tick touches one or two pages of code instead of one per function
 * scattered over the binary: on a VM each page a waking process touches
 * costs a TLB and cache refill, and the guard wakes every second for
 * days (docs/guard.md, "Overhead"). No effect on what the code does.
 */
#ifndef GPURENT_HOT_H
#define GPURENT_HOT_H

#if defined(__GNUC__)
#define GPURENT_HOT __attribute__((hot))
#else
#define GPURENT_HOT
#endif

#endif
