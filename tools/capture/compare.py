#!/usr/bin/env python3
# compare.py REF NEW [REF2] - compares two recordings of tools/capture/run.sh
# invocation by invocation: argv, exit status, stdout and stderr, with the
# temporary directory, dates, unix times, pids, transfer rates and
# durations masked. With REF2 (a second recording of the old binary), an
# invocation that differs between REF and REF2 too varies by itself and is
# counted apart.
import os, re, sys

MASKS = [(re.compile(rb'/tmp/tmp\.[A-Za-z0-9]{10}'), b'$T'),
         (re.compile(rb'run-\d{8}-\d{6}-\d+'), b'run-DATE-PID'),
         (re.compile(rb'20\d\d-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?Z?'), b'DATETIME'),
         (re.compile(rb'1[78]\d{8}(\.\d+)?'), b'UNIXTIME'),
         (re.compile(rb'[\d.]+ ([KMGT]i?)?B/s'), b'RATE'),
         (re.compile(rb'in \d+\.\d+ s'), b'in N s'),
         (re.compile(rb'after \d+(\.\d+)? s'), b'after N s'),
         (re.compile('pid \\d+|（pid \\d+）'.encode()), b'pid N')]


def read(path):
    try:
        with open(path, 'rb') as f:
            s = f.read()
    except FileNotFoundError:
        return None
    for r, t in MASKS:
        s = r.sub(t, s)
    return s


def differ(a, b):
    """{script/N: the parts that differ}, and the count compared."""
    out, total = {}, 0
    for script in sorted(os.listdir(a)):
        da, db = os.path.join(a, script), os.path.join(b, script)
        if not os.path.isdir(da):
            continue
        na = len(os.listdir(da))
        nb = len(os.listdir(db)) if os.path.isdir(db) else 0
        if na != nb:
            out[script] = f'{na} invocations, {nb} in {b}'
        for i in range(min(na, nb)):
            total += 1
            bad = [k for k in ('args', 'rc', 'out', 'err')
                   if read(f'{da}/{i}.d/{k}') != read(f'{db}/{i}.d/{k}')]
            if bad:
                out[f'{script}/{i}'] = ','.join(bad)
    return out, total


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit('usage: compare.py REF NEW [REF2]')
    ref, new = sys.argv[1], sys.argv[2]
    d, total = differ(ref, new)
    noise = differ(ref, sys.argv[3])[0] if len(sys.argv) == 4 else {}
    real = {k: v for k, v in d.items() if k not in noise}
    print(f'{total} invocations compared: {total - len(d)} byte-identical, '
          f'{len(d) - len(real)} differ but vary by themselves, {len(real)} differ')
    for k, v in sorted(real.items()):
        args = read(f'{ref}/{k}.d/args') if '/' in k else None
        argv = args.decode(errors='replace').splitlines()[1:5] if args else ''
        print(f'  {k}: {v} {argv}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
