#!/usr/bin/env bash
# scale.sh: nginx (deploy/nginx.conf) in front of N oxml-mcp processes, all on loopback
# (docs/deploy.md). Builds nothing: run `npm run build` first.
#
#   bash scripts/scale.sh up N      start N processes and nginx; print "url: http://127.0.0.1:PORT/mcp",
#                                   then "pid: PID" for each process
#   bash scripts/scale.sh start P   start one more process on port P (e.g. again after it was stopped);
#                                   print "pid: PID"
#   bash scripts/scale.sh down      stop nginx and every process, remove the stack's folder
#
# With OXML_SCALE_STORE=1, `up` first starts a redis-server on loopback (deploy/redis.conf, with
# its own port and folder), prints "store: redis://127.0.0.1:PORT", and every process it starts,
# then and later, runs with `--store` that URL (docs/adr/0041-a-shared-store-for-held-texts.md).
# With OXML_SCALE_STORE=cluster, a Redis Cluster instead: six redis-server in cluster mode (three
# primaries, three replicas, joined by redis-cli), and each process runs with `--store-cluster`
# and the next node as its seed, so that processes start on different nodes
# (docs/adr/0052-the-shared-store-on-a-redis-cluster.md).
#
# The stack lives in one temporary folder, OXML_SCALE_DIR (default: ${TMPDIR:-/tmp}/oxml-scale-UID):
# nginx.conf, logs, and the file `servers` ("PID PORT" per process). Process P runs
# `dist/cli.js --transport streamable-http --port P --instance P $OXML_SCALE_FLAGS` with the
# allocator setting of docs/deploy.md; its log, server-P.log, ends with its exit status. Ports are found free and then bound; a port taken in
# between is noticed (the process exits, or nginx fails to start) and another one is tried.
# Readiness is a 200 from /healthz, polled, never a fixed sleep.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${OXML_SCALE_DIR:-${TMPDIR:-/tmp}/oxml-scale-$(id -u)}
FLAGS=${OXML_SCALE_FLAGS:-}
CLI=$ROOT/dist/cli.js
STORE=${OXML_SCALE_STORE:-}
TRIES=5
READY_SECONDS=60

die() {
  echo "scale.sh: $*" >&2
  exit 1
}

find_nginx() {
  NGINX=${NGINX:-$(command -v nginx || true)}
  [[ -z $NGINX && -x /usr/sbin/nginx ]] && NGINX=/usr/sbin/nginx
  if [[ -z $NGINX ]]; then
    cat >&2 <<'EOF'
scale.sh: nginx is not installed. On Debian or Ubuntu:
  sudo apt-get update && sudo apt-get install -y nginx
(the package's own service need not run: this script starts nginx itself, on loopback, with its
own configuration). Or set NGINX=/path/to/nginx.
EOF
    exit 3
  fi
}

find_redis() {
  REDIS_SERVER=${REDIS_SERVER:-$(command -v redis-server || true)}
  [[ -z $REDIS_SERVER && -x /usr/bin/redis-server ]] && REDIS_SERVER=/usr/bin/redis-server
  if [[ -z $REDIS_SERVER ]]; then
    cat >&2 <<'EOF'
scale.sh: redis-server is not installed (OXML_SCALE_STORE=1 asks for a shared store). On Debian or Ubuntu:
  sudo apt-get update && sudo apt-get install -y redis-server
(its own service need not run: this script starts redis-server itself, on loopback). Or set
REDIS_SERVER=/path/to/redis-server; Valkey's valkey-server reads the same configuration.
EOF
    exit 3
  fi
}

# Polls the store on PORT until it answers PING, while PID lives; at most READY_SECONDS.
wait_store() {
  local port=$1 pid=$2 deadline=$((SECONDS + READY_SECONDS))
  while ((SECONDS < deadline)); do
    kill -0 "$pid" 2>/dev/null || return 1
    if node -e '
      const s = require("node:net").connect(Number(process.argv[1]), "127.0.0.1");
      let got = "";
      s.on("connect", () => s.write("PING\r\n"));
      s.on("data", (d) => { got += d; if (got.includes("\r\n")) { s.destroy(); process.exit(got.startsWith("+PONG") ? 0 : 1); } });
      s.on("error", () => process.exit(1));
    ' "$port"; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# Starts six redis-server in cluster mode on free loopback ports (deploy/redis.conf's settings),
# joins them with redis-cli, and waits until every node says cluster_state:ok; writes their URLs
# to $DIR/store, one a line, and their PIDs to $DIR/store.pid.
start_cluster() {
  local i try port bus pid cli ports=()
  cli=${REDIS_CLI:-$(command -v redis-cli || echo "$(dirname "$REDIS_SERVER")/redis-cli")}
  [[ -x $cli ]] || die "redis-cli is not installed (sudo apt-get install -y redis-tools)"
  : >"$DIR/store.pid"
  for ((i = 0; i < 6; i++)); do
    for ((try = 0; try < TRIES; try++)); do
      port=$(free_port)
      bus=$(free_port)
      mkdir -p "$DIR/node-$port"
      "$REDIS_SERVER" "$ROOT/deploy/redis.conf" --port "$port" --cluster-port "$bus" --dir "$DIR/node-$port" \
        --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file nodes.conf --daemonize no \
        --logfile "$DIR/redis-$port.log" </dev/null >/dev/null 2>&1 &
      pid=$!
      if wait_store "$port" "$pid"; then
        echo "$pid" >>"$DIR/store.pid"
        ports+=("$port")
        break
      fi
      kill -KILL "$pid" 2>/dev/null || true
    done
    ((${#ports[@]} == i + 1)) || return 1
  done
  "$cli" --cluster create "${ports[@]/#/127.0.0.1:}" --cluster-replicas 1 --cluster-yes >"$DIR/cluster-create.log" 2>&1 || return 1
  local deadline=$((SECONDS + READY_SECONDS))
  for port in "${ports[@]}"; do
    until "$cli" -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; do
      ((SECONDS < deadline)) || return 1
      sleep 0.1
    done
  done
  printf 'redis://127.0.0.1:%s\n' "${ports[@]}" >"$DIR/store"
}

# Starts redis-server on a free loopback port with deploy/redis.conf; writes its URL to $DIR/store.
start_store() {
  local try port pid
  for ((try = 0; try < TRIES; try++)); do
    port=$(free_port)
    "$REDIS_SERVER" "$ROOT/deploy/redis.conf" --port "$port" --dir "$DIR" --bind 127.0.0.1 \
      --daemonize no --logfile "$DIR/redis.log" </dev/null >/dev/null 2>&1 &
    pid=$!
    if wait_store "$port" "$pid"; then
      echo "$pid" >"$DIR/store.pid"
      echo "redis://127.0.0.1:$port" >"$DIR/store"
      return 0
    fi
    kill -KILL "$pid" 2>/dev/null || true
  done
  return 1
}

free_port() {
  node -e 'const s=require("node:net").createServer();s.listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close();});'
}

# Polls URL until it answers 200, while PID (when given) lives; at most READY_SECONDS.
wait_ready() {
  local url=$1 pid=${2:-} deadline=$((SECONDS + READY_SECONDS))
  while ((SECONDS < deadline)); do
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    if node -e 'fetch(process.argv[1]).then((r)=>process.exit(r.status===200?0:1),()=>process.exit(1))' "$url"; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# Whether PID is still the process this stack started (a PID can be reused once it exits).
ours() {
  local pid=$1 what=$2
  [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$what"
}

# Starts one process on PORT; prints its PID once /healthz answers, or fails. A small bash
# parent waits for it and appends "scale.sh: exit status N" to its log when it ends.
start_server() {
  local port=$1 pid="" log=$DIR/server-$port.log deadline=$((SECONDS + READY_SECONDS)) before store=()
  if [[ $STORE == cluster && -s $DIR/store ]]; then
    # The next node as this process's seed: processes start on different nodes.
    store=(--store "$(sed -n "$(($(wc -l <"$DIR/servers") % $(wc -l <"$DIR/store") + 1))p" "$DIR/store")" --store-cluster)
  elif [[ -s $DIR/store ]]; then
    store=(--store "$(cat "$DIR/store")")
  fi
  rm -f "$DIR/pid-$port"
  before=$(grep -c "listening on http://127.0.0.1:$port/" "$log" 2>/dev/null || true)
  (
    # shellcheck disable=SC2086 # FLAGS is a list of flags
    MALLOC_MMAP_THRESHOLD_=1048576 node "$CLI" --transport streamable-http --host 127.0.0.1 \
      --port "$port" --instance "$port" "${store[@]}" $FLAGS </dev/null >>"$log" 2>&1 &
    echo $! >"$DIR/pid-$port.new" && mv "$DIR/pid-$port.new" "$DIR/pid-$port"
    wait $!
    echo "scale.sh: exit status $?" >>"$log"
  ) >/dev/null 2>&1 &
  while [[ ! -s $DIR/pid-$port ]] && ((SECONDS < deadline)); do sleep 0.05; done
  pid=$(cat "$DIR/pid-$port" 2>/dev/null || true)
  [[ -n $pid ]] || return 1
  # This process bound the port (not one still listening there): its own "listening on" line.
  while (($(grep -c "listening on http://127.0.0.1:$port/" "$log" 2>/dev/null || true) <= ${before:-0})); do
    kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
  if wait_ready "http://127.0.0.1:$port/healthz" "$pid"; then
    echo "$pid $port" >>"$DIR/servers"
    echo "$pid"
    return 0
  fi
  kill -KILL "$pid" 2>/dev/null || true
  return 1
}

# The nginx configuration for the ports given: deploy/nginx.conf with its folder, its listening
# port and its "processes" part written for these processes, in the same shape.
write_nginx_conf() {
  local listen=$1
  shift
  local all=("$@") block port other
  block="    upstream oxml {"$'\n'"        zone oxml 64k;"$'\n'
  for port in "${all[@]}"; do
    block+="        server 127.0.0.1:$port max_fails=1 fail_timeout=2s;"$'\n'
  done
  block+="        keepalive 32;"$'\n'"    }"$'\n'
  for port in "${all[@]}"; do
    block+="    upstream oxml_$port {"$'\n'"        zone oxml_$port 64k;"$'\n'
    block+="        server 127.0.0.1:$port max_fails=1 fail_timeout=2s;"$'\n'
    for other in "${all[@]}"; do
      [[ $other != "$port" ]] && block+="        server 127.0.0.1:$other backup;"$'\n'
    done
    block+="        keepalive 8;"$'\n'"    }"$'\n'
  done
  block+="    map \$http_mcp_session_id \$oxml_upstream {"$'\n'"        default oxml;"$'\n'
  for port in "${all[@]}"; do
    block+="        \"~^$port\\.\" oxml_$port;"$'\n'
  done
  block+="    }"
  local user=""
  # Run as root (a container), nginx would hand its workers to "nobody", who cannot write here.
  [[ $(id -u) == 0 ]] && user="user root;"
  BLOCK=$block awk -v dir="$DIR/" -v listen="$listen" -v user="$user" '
    /^ *# processes: begin$/ { print; print ENVIRON["BLOCK"]; skip = 1; next }
    /^ *# processes: end$/ { skip = 0 }
    skip { next }
    /^worker_processes/ { print "worker_processes 1;"; if (user != "") print user; next }
    { gsub("/var/lib/oxml-mcp/nginx/", dir); gsub("127\\.0\\.0\\.1:8100;", "127.0.0.1:" listen ";"); print }
  ' "$ROOT/deploy/nginx.conf" >"$DIR/nginx.conf"
}

up() {
  local count=$1 i try pid port ports=() pids=()
  [[ $count =~ ^[1-9][0-9]?$ ]] || die "up takes a number of processes from 1 to 99"
  [[ -f $CLI ]] || die "$CLI is missing; run 'npm run build' first"
  find_nginx
  [[ -e $DIR ]] && die "$DIR exists: a stack is up (or was not taken down); run 'bash scripts/scale.sh down' first"
  mkdir -p "$DIR"
  : >"$DIR/servers"
  if [[ -n $STORE ]]; then
    find_redis
    if [[ $STORE == cluster ]]; then
      start_cluster || { down >/dev/null 2>&1 || true; die "the Redis Cluster did not start; see $DIR/redis-*.log"; }
    else
      start_store || { down >/dev/null 2>&1 || true; die "redis-server did not start; see $DIR/redis.log"; }
    fi
  fi
  for ((i = 0; i < count; i++)); do
    pid=""
    for ((try = 0; try < TRIES; try++)); do
      port=$(free_port)
      if pid=$(start_server "$port"); then break; fi
      pid=""
    done
    [[ -n $pid ]] || { down >/dev/null 2>&1 || true; die "process $((i + 1)) did not start; see its log"; }
    ports+=("$port")
    pids+=("$pid")
  done
  local listen started=""
  for ((try = 0; try < TRIES; try++)); do
    listen=$(free_port)
    write_nginx_conf "$listen" "${ports[@]}"
    # nginx reads an environment variable NGINX of its own (sockets inherited on upgrade).
    if env -u NGINX "$NGINX" -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/error.log" 2>>"$DIR/nginx-start.log" &&
      wait_ready "http://127.0.0.1:$listen/healthz"; then
      started=1
      break
    fi
    [[ -f $DIR/nginx.pid ]] && kill -TERM "$(cat "$DIR/nginx.pid")" 2>/dev/null || true
  done
  if [[ -z $started ]]; then
    cat "$DIR/nginx-start.log" >&2 || true
    down >/dev/null 2>&1 || true
    die "nginx did not start"
  fi
  echo "$listen" >"$DIR/port"
  echo "url: http://127.0.0.1:$listen/mcp"
  if [[ -s $DIR/store ]]; then echo "store: $(head -n 1 "$DIR/store")"; fi
  if [[ $STORE == cluster ]]; then echo "store-cluster: $(wc -l <"$DIR/store") nodes"; fi
  for pid in "${pids[@]}"; do echo "pid: $pid"; done
}

start_one() {
  local port=$1 pid
  [[ $port =~ ^[0-9]+$ ]] || die "start takes a port"
  [[ -f $DIR/servers ]] || die "no stack is up in $DIR"
  pid=$(start_server "$port") || die "the process on port $port did not start; see $DIR/server-$port.log"
  echo "pid: $pid"
}

# Stops PIDs that are still ours with SIGNAL, then waits (30 s at most) and kills what is left.
stop_all() {
  local signal=$1 what=$2
  shift 2
  local pid live=() deadline=$((SECONDS + 30))
  for pid in "$@"; do
    if ours "$pid" "$what"; then
      kill "-$signal" "$pid" 2>/dev/null || true
      live+=("$pid")
    fi
  done
  for pid in "${live[@]}"; do
    while ours "$pid" "$what" && ((SECONDS < deadline)); do sleep 0.1; done
    ours "$pid" "$what" && kill -KILL "$pid" 2>/dev/null || true
  done
}

down() {
  [[ -d $DIR ]] || die "no stack is up in $DIR"
  if [[ -f $DIR/nginx.pid ]]; then stop_all QUIT nginx "$(cat "$DIR/nginx.pid")"; fi
  if [[ -f $DIR/servers ]]; then
    # shellcheck disable=SC2046 # one PID per word
    stop_all TERM "$CLI" $(cut -d' ' -f1 "$DIR/servers")
  fi
  # shellcheck disable=SC2046 # one PID per word
  if [[ -f $DIR/store.pid ]]; then stop_all TERM redis-server $(cat "$DIR/store.pid"); fi
  rm -rf "$DIR"
}

case ${1:-} in
  up) up "${2:-}" ;;
  start) start_one "${2:-}" ;;
  down) down ;;
  *)
    echo "usage: bash scripts/scale.sh up N | start PORT | down" >&2
    exit 2
    ;;
esac
