"""At exit, write /tmp/perf-PID.map naming every numba-compiled function (run with a fresh
NUMBA_CACHE_DIR: functions loaded from numba's cache carry no LLVM module to list)."""
import atexit, os, re, sys


def short(name):
    prefix = name.split("_ZN")[0]
    rest = name.split("_ZN", 1)[1] if "_ZN" in name else name
    parts = []
    while rest and rest[0].isdigit():
        n = re.match(r"\d+", rest).group()
        parts.append(rest[len(n):len(n) + int(n)])
        rest = rest[len(n) + int(n):]
    return prefix + ".".join(parts) if parts else name


def write():
    from numba.core.registry import CPUDispatcher
    entries = {}
    for mod in list(sys.modules.values()):
        if not getattr(mod, "__name__", "").startswith("alphazero"):
            continue
        for d in list(vars(mod).values()):
            if isinstance(d, CPUDispatcher):
                for cres in d.overloads.values():
                    lib = cres.library
                    module = getattr(lib, "_final_module", None)
                    if module is None:
                        continue
                    for f in module.functions:
                        if f.is_declaration:
                            continue
                        try:
                            addr = lib.get_pointer_to_function(f.name)
                        except Exception:
                            continue
                        if addr:
                            entries[addr] = short(f.name)
    addrs = sorted(entries)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, a in enumerate(addrs):
            size = min((addrs[i + 1] - a) if i + 1 < len(addrs) else 4096, 1 << 20)
            out.write(f"{a:x} {size:x} {entries[a]}\n")
    print(f"perfmap: {len(addrs)} functions", file=sys.stderr)


atexit.register(write)
