#!/usr/bin/env bash
# The device tool sends the main checkout only. To run a git worktree's (or any copy's) tree
# there, copy it into <main>/.carry/<name> (git-ignored through .git/info/exclude), with the
# CMocka packages, then call the tool with:
#     run(command="cd .carry/<name> && bash scripts/device.sh", carry=[".carry/<name>"])
# Usage: scripts/device-carry.sh <name>   (run from the worktree's root)
set -euo pipefail
name=${1:?usage: device-carry.sh <name>}
main=$(git worktree list --porcelain | awk '/^worktree /{print $2; exit}')
dst=$main/.carry/$name
mkdir -p "$dst"
rsync -a --delete --exclude '/build' --exclude '/build-*' --exclude '.git' --exclude '__pycache__' ./ "$dst/"
if [ -d "$main/.deps" ]; then rsync -a "$main/.deps/" "$dst/.deps/"; fi
du -sh "$dst"
