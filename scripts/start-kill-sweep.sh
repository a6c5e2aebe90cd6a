#!/bin/bash
# Needs strace. Design note 68 gives the figures (reference/design-notes.md).
# Usage: scripts/start-kill-sweep.sh BIN  -- `start --replace` killed (SIGKILL) at the Nth call of each file
# system call it makes (openat, write, rename..., mkdir, unlink, fsync, close), N = 1 up to the
# most any of them is called; after each: `runs` exit 0 with no unreadable entry, and the
# previous active run intact when no new run appeared.
BIN=$(realpath "${1:?usage: scripts/start-kill-sweep.sh PATH-TO-SELF-REPAIR}")
SET=openat,write,pwrite64,rename,renameat,renameat2,mkdir,mkdirat,unlink,unlinkat,fsync,fdatasync,close,ftruncate,flock
base=${TMPDIR:-/tmp}/start-kill-sweep-$$; rm -rf $base; mkdir -p $base; cd $base; git init -q .
python3 -c "
import json
print('\n'.join(json.dumps({'tool':'ruff','rule_id':'F401','level':'warning','message':'m%d'%i,'path':'src/m%d.py'%(i//7),'line':i%40+1}) for i in range(300)))" > f.jsonl
head -5 f.jsonl > small.jsonl
$BIN start small.jsonl --run-id r-old >/dev/null 2>&1
cp -r .self-repair ${TMPDIR:-/tmp}/start-kill-sweep-pristine-$$
broken=0; lost=0; made=0; points=0
N=1
while :; do
  rm -rf .self-repair; cp -r ${TMPDIR:-/tmp}/start-kill-sweep-pristine-$$ .self-repair
  strace -f -o /dev/null -e trace=$SET -e inject=$SET:signal=KILL:when=$N $BIN start f.jsonl --replace --run-id r-new >/dev/null 2>&1
  rc=$?
  points=$((points+1))
  out=$($BIN runs --json 2>&1); rrc=$?
  if [ $rrc -ne 0 ] || echo "$out" | grep -q '"error"'; then broken=$((broken+1)); echo "N=$N broken: $out" | head -3; fi
  if [ -f .self-repair/runs/r-new/state.json ]; then made=$((made+1)); else
    st=$($BIN status --json --run r-old 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])' 2>/dev/null)
    [ "$(cat .self-repair/active)" = r-old ] && [ "$st" = active ] || { lost=$((lost+1)); echo "N=$N: r-old not intact ($st)"; }
  fi
  # The start ran to its end without a kill: every call was passed.
  [ $rc -eq 0 ] && break
  N=$((N+1)); [ $N -gt 5000 ] && break
done
echo "RESULT bin=$BIN kill_points=$points broken=$broken new_run_made=$made active_lost=$lost"
cd /; rm -rf $base ${TMPDIR:-/tmp}/start-kill-sweep-pristine-$$
