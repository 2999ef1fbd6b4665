"""perf: solve FForum #20-#39 (or the .obf given), then write /tmp/perf-PID.map of every compiled numba function, so that
`perf record` / `perf report` can name the JIT code (numba itself registers nothing with perf)."""
import os, re, sys, time
import numba
from numba.core.registry import CPUDispatcher
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver
import alphazero.solver.endgame as E, alphazero.solver.patterns as P, alphazero.solver.stability as ST, alphazero.solver.table as T
import alphazero.othello.bitboard as B, alphazero.othello.bits as BI

positions = read_obf(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/ffo/fforum-20-39.obf")
s = Solver(22)
s.warm_up()
t = time.time(); nodes = 0
for p in positions:
    r = s.solve(p.state.player, p.state.opponent)
    assert r.score == p.best_score
    nodes += r.nodes
print(f"nodes {nodes:,} wall {time.time()-t:.2f}", file=sys.stderr)
def short(name):
    """The last plain name of a numba-mangled symbol (_ZN<len><name>...B...), prefixed by its wrapper kind."""
    prefix = name.split("_ZN")[0]
    rest = name.split("_ZN", 1)[1] if "_ZN" in name else name
    parts = []
    while rest and rest[0].isdigit():
        n = re.match(r"\d+", rest).group()
        parts.append(rest[len(n):len(n) + int(n)])
        rest = rest[len(n) + int(n):]
    return prefix + ".".join(parts)


entries = {}
for mod in (E, P, ST, T, B, BI):
    for name in dir(mod):
        d = getattr(mod, name)
        if isinstance(d, CPUDispatcher):
            for sig, cres in d.overloads.items():
                lib = cres.library
                try:
                    fns = [f for f in lib._final_module.functions if not f.is_declaration]
                except Exception:
                    fns = []
                for f in fns:
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
print(f"{len(addrs)} functions mapped", file=sys.stderr)
