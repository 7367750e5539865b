#!/usr/bin/env bash
# Every C++ standard library symbol a binary uses must bind to libstdc++, never to
# a copy that a LibTorch library exports (pip's libtorch.so exports a statically
# linked std::filesystem whose remove_all jumps to address 0 against an older
# libstdc++: the aot_inductor crash on the H100). Each binary is loaded with every
# symbol bound at once (LD_BIND_NOW), the dynamic linker's bindings are read
# (LD_DEBUG), and any std:: symbol (mangled _ZSt, _ZNSt, _ZNKSt, _ZTISt, _ZTVSt,
# _ZTSSt) bound from the binary into libtorch*/libc10* fails the test.
#   libstdcxx_bindings.sh BINARY...
set -u
[ $# -gt 0 ] || { echo "usage: $0 BINARY..."; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failed=0
for bin in "$@"; do
  [ -n "$bin" ] || continue
  name=$(basename "$bin")
  # --help makes every binary here exit after loading (CLI11, GoogleTest, Google Benchmark).
  LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/$name" "$bin" --help >/dev/null 2>&1
  log=$(ls "$tmp/$name".* 2>/dev/null | head -n 1)
  [ -n "$log" ] || { echo "FAIL: $name: no LD_DEBUG output (did it load?)"; failed=1; continue; }
  total=$(grep -c "binding file $bin \[0\] to " "$log" || true)
  bad=$(grep "binding file $bin \[0\] to .*/lib\(torch\|c10\)[^/]*\.so[^ ]* \[0\]: normal symbol \`_Z\(N\|NK\|TI\|TV\|TS\)\?St" "$log" || true)
  if [ "$total" -eq 0 ]; then
    echo "FAIL: $name: no bindings seen"; failed=1
  elif [ -n "$bad" ]; then
    echo "FAIL: $name binds $(printf '%s\n' "$bad" | wc -l) std:: symbols to LibTorch's copies, e.g.:"
    printf '%s\n' "$bad" | sed 's/^[0-9]*: *//' | head -n 5
    failed=1
  else
    echo "ok: $name ($total bindings, none of std:: into LibTorch)"
  fi
  rm -f "$tmp/$name".*
done
exit $failed
