"""endgame_search with a table-bits suffix on reaches: N@BITS."""
import dataclasses, sys, json
from alphazero.bench import endgame_search as es
orig = es.parse_reach
def parse(text):
    base, _, bits = text.partition('@')
    cfg = orig(base)
    return dataclasses.replace(cfg, endgame_table_bits=int(bits)) if bits else cfg
es.parse_reach = parse
print(json.dumps(es.main(sys.argv[1:])))
