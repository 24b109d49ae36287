# Sourced by the memory benches: sample PID FILE writes "seconds KiB" (VmRSS)
# to FILE every 15 s while PID lives.
sample() {
  local pid=$1 file=$2 start kib
  start=$(date +%s)
  : > "$file"
  while kill -0 "$pid" 2> /dev/null; do
    kib=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2> /dev/null || true)
    [ -n "$kib" ] && echo "$(($(date +%s) - start)) $kib" >> "$file"
    sleep 15
  done
}
