#!/usr/bin/env bash
# RabbitMQ from Debian's packages for ysuite-amqp's tests and the amqp report.
#   rabbitmq.sh start   installs rabbitmq-server if it is missing (root and apt-get needed), starts a
#                       node listening on 127.0.0.1:5672 and waits until it accepts connections;
#                       prints the URI (amqp://guest:guest@127.0.0.1:5672) and exits 0, or says why
#                       not on stderr and exits 1 (the tests then run on the embedded broker only).
#   rabbitmq.sh stop    stops the node this script started, and Erlang's port mapper with it.
# Tests find the broker through YSUITE_RABBITMQ_URI, which .ci/run sets from what start prints.
set -uo pipefail

uri=amqp://guest:guest@127.0.0.1:5672

start() {
  if ! command -v rabbitmq-server >/dev/null 2>&1 && [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ]; then
    export PATH="$PATH:/usr/lib/rabbitmq/bin"
  fi
  if ! command -v rabbitmq-server >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "rabbitmq.sh: rabbitmq-server is not installed and cannot be (needs root and apt-get)" >&2
      return 1
    fi
    echo "rabbitmq.sh: installing rabbitmq-server from Debian's packages" >&2
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q rabbitmq-server >/dev/null 2>&1; then
      DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1
      if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q rabbitmq-server >/dev/null 2>&1; then
        echo "rabbitmq.sh: apt-get install rabbitmq-server failed" >&2
        return 1
      fi
    fi
    export PATH="$PATH:/usr/lib/rabbitmq/bin"
  fi
  if (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; then
    # the package's own service may have started a node: use it (stop ends it as well)
    if rabbitmqctl await_startup --timeout 30 >/dev/null 2>&1; then
      echo "$uri"
      return 0
    fi
    echo "rabbitmq.sh: something other than RabbitMQ listens on 127.0.0.1:5672" >&2
    return 1
  fi
  RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT=5672 rabbitmq-server -detached >/dev/null 2>&1
  # await_startup fails at once while the node is not yet known to epmd: ask again, up to 120 s
  local deadline=$(( $(date +%s) + 120 ))
  until rabbitmqctl await_startup --timeout 10 >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "rabbitmq.sh: the node did not start within 120 s (log: /var/log/rabbitmq)" >&2
      stop
      return 1
    fi
    sleep 1
  done
  echo "$uri"
}

stop() {
  if command -v rabbitmqctl >/dev/null 2>&1 || [ -x /usr/lib/rabbitmq/bin/rabbitmqctl ]; then
    PATH="$PATH:/usr/lib/rabbitmq/bin" rabbitmqctl shutdown >/dev/null 2>&1 || true
  fi
  command -v epmd >/dev/null 2>&1 && epmd -kill >/dev/null 2>&1 || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: rabbitmq.sh start|stop" >&2; exit 2 ;;
esac
