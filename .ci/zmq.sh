#!/usr/bin/env bash
# libzmq 4.3 from Debian's packages, for ysuite-zmq's interop tests (python3-zmq peers) and the zmq
# report (libzmq3-dev: zmq.h and libzmq.so for the C perf programs, compiled with gcc -lzmq), and
# libsodium23, which ysuite-zmq's CURVE loads through jnr-ffi (libzmq5 depends on it too; named here so
# that CURVE never rests on that dependency alone).
#   zmq.sh   installs libzmq3-dev, python3-zmq, libsodium23 (and gcc) where missing; needs root and apt-get.
#            Idempotent: with everything present it installs nothing and does not touch apt's lists.
#            Exits 0 when libzmq's header and pyzmq are usable, else 1 with the reason on stderr
#            (the interop tests then fail, naming what is missing).
set -uo pipefail
export DEBIAN_FRONTEND=noninteractive
# Debian's python3-zmq belongs to Debian's python3 (a python3 earlier on the PATH, pyenv's say, lacks it);
# the tests pick /usr/bin/python3 the same way (YSUITE_PYTHON overrides both).
py=${YSUITE_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=python3

have_sodium() {
  for f in /usr/lib/*/libsodium.so.23 /usr/lib/libsodium.so.23; do
    [ -e "$f" ] && return 0
  done
  return 1
}

have_all() {
  [ -f /usr/include/zmq.h ] && have_sodium && command -v gcc >/dev/null 2>&1 \
    && command -v "$py" >/dev/null 2>&1 && "$py" -c 'import zmq' >/dev/null 2>&1
}

if have_all; then
  echo "zmq.sh: libzmq $("$py" -c 'import zmq; print(zmq.zmq_version())') and pyzmq are installed"
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "zmq.sh: libzmq3-dev/python3-zmq/libsodium23 are missing and cannot be installed (needs root and apt-get)" >&2
  exit 1
fi
packages=(libzmq3-dev python3-zmq libsodium23 gcc libc6-dev pkg-config)
echo "zmq.sh: installing ${packages[*]} from Debian's packages"
if ! apt-get install -y -q --no-install-recommends "${packages[@]}" >/dev/null 2>&1; then
  # a fresh machine has no package lists yet: read them once, then try again
  apt-get update -qq >/dev/null 2>&1
  if ! apt-get install -y -q --no-install-recommends "${packages[@]}"; then
    echo "zmq.sh: apt-get install ${packages[*]} failed" >&2
    exit 1
  fi
fi
if ! have_all; then
  echo "zmq.sh: installed, yet zmq.h, libsodium.so.23, gcc or python3's zmq module is still missing" >&2
  exit 1
fi
echo "zmq.sh: libzmq $("$py" -c 'import zmq; print(zmq.zmq_version())') and pyzmq installed"
