"""What a headroom trace store holds, for the benchmarks that count it before deleting the store:
its API calls, its kernels, and the kernels joined to their launch call by correlation id. A run
that recorded no launch call did not measure the cost of recording launches (docs/profiler.md,
"Which API calls, and when"). Usage: python3 bench/store_records.py STORE.sqlite   (one JSON line)
"""
import json
import sqlite3
import sys

c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
one = lambda sql: c.execute(sql).fetchone()[0]
print(json.dumps({"api_calls": one("SELECT count(*) FROM api_calls"), "kernels": one("SELECT count(*) FROM kernels"),
                  "joined": one("SELECT count(*) FROM kernels k WHERE EXISTS (SELECT 1 FROM api_calls a "
                                "WHERE a.process = k.process AND a.correlation = k.correlation)")}))
