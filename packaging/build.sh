#!/usr/bin/env bash
# Builds the one-folder bundle (OUT/dist/Librarian) in a fresh venv, then smoke-tests it:
# the window renders the demo vault offscreen to a 1400×860 PNG (the note and the graph),
# and the command line scans it.
#
#     packaging/build.sh [OUT]        (OUT defaults to build/packaging, which git ignores)
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-build/packaging}")"
dist="$out/dist" work="$out/work" venv="$out/venv"

start=$SECONDS
rm -rf "$venv" && python3 -m venv "$venv"
"$venv/bin/pip" install -q . pyinstaller
installed=$SECONDS
"$venv/bin/pyinstaller" packaging/librarian.spec --noconfirm --log-level WARN \
  --distpath "$dist" --workpath "$work"
built=$SECONDS
bundle="$dist/Librarian"

# The smoke test never touches this machine's settings, cache or data.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export XDG_CACHE_HOME="$scratch/cache" XDG_CONFIG_HOME="$scratch/config" \
       XDG_DATA_HOME="$scratch/data" XDG_STATE_HOME="$scratch/state" \
       XDG_RUNTIME_DIR="$scratch/runtime" QT_QPA_PLATFORM=offscreen
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
cp -r "$bundle/_internal/librarian_gui/resources/demo-vault" "$scratch/vault"

for view in preview graph; do
  "$bundle/librarian-gui" "$scratch/vault" --view "$view" --screenshot "$scratch/$view.png"
  python3 - "$scratch/$view.png" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read(24)
size = struct.unpack(">II", data[16:24])
assert data[:8] == b"\x89PNG\r\n\x1a\n" and size == (1400, 860), f"{sys.argv[1]}: {size}"
print(f"{sys.argv[1]}: PNG {size[0]}×{size[1]}")
PY
done
"$bundle/librarian" scan "$scratch/vault"

echo "bundle  $bundle  $(du -sh "$bundle" | cut -f1)"
echo "time    venv+install $((installed - start)) s, pyinstaller $((built - installed)) s, smoke $((SECONDS - built)) s"
