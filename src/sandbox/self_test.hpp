#pragma once
// `headroom-sandbox --check`: runs this binary inside a sandbox (`--self-test`), which looks at its
// own situation and says, line by line, what isolation it has. Exit 0 when every property holds;
// otherwise 1, the lines saying what is missing. `headroom eval` asks this once before it runs any
// candidate and refuses (unless --no-sandbox) when it fails.
namespace headroom::sandbox {

int check_isolation();
int self_test();

}  // namespace headroom::sandbox
