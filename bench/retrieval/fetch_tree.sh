#!/usr/bin/env bash
# Checks out the skill tree the retrieval evaluation is labelled against:
# gabrielmoreira/agent-skills-mirror at a pinned commit, SKILL.md files only.
#
#   bench/retrieval/fetch_tree.sh DEST [--full]
#
#   DEST     an empty or missing directory; the tree lands in it
#   --full   every file of the commit, not only the SKILL.md files (~420 MB;
#            a local mirror may lack its largest files, and then this fails)
#
# Sources, first that applies:
#   SKILLS_MIRROR_GIT=DIR   a local git directory (bare or not) that holds the commit,
#                           e.g. an existing mirror; nothing is fetched
#   SKILLS_MIRROR_URL=URL   the remote to fetch the one commit from
#                           (default https://github.com/gabrielmoreira/agent-skills-mirror.git)
#
# Why SKILL.md only by default: ranking reads a skill's frontmatter and body, all
# in SKILL.md; the sibling files change nothing the evaluation measures.
#
# The tree is not ours to redistribute: the mirror's LICENSE (MIT) covers its
# tooling, and every mirrored skill keeps its own author's licence. So the repo
# keeps only the requests and labels (queries.jsonl) and this script.
set -euo pipefail

COMMIT=4e7649a87f4d537d80ff59a4fcf2857c2b28ff7e
SKILL_FILES=15728   # SKILL.md files in that commit; a different count means a different tree
URL=${SKILLS_MIRROR_URL:-https://github.com/gabrielmoreira/agent-skills-mirror.git}

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
dest="" full=""
for arg in "$@"; do
  case "$arg" in
    --full) full=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fetch_tree: unknown option: $arg" >&2; exit 2 ;;
    *) [[ -z $dest ]] || { echo "fetch_tree: one DEST only" >&2; exit 2; }; dest=$arg ;;
  esac
done
[[ -n $dest ]] || { usage >&2; exit 2; }

marker="$dest/.skilldeck-eval-tree"
if [[ -f $marker ]] && [[ $(cat "$marker") == "$COMMIT${full:+ full}" ]]; then
  echo "fetch_tree: $dest already holds $COMMIT${full:+ (full)}"
  exit 0
fi
if [[ -e $dest ]] && [[ -n $(ls -A "$dest") ]]; then
  echo "fetch_tree: $dest is not empty; give an empty or missing directory" >&2
  exit 1
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/skilldeck-eval-tree.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

if [[ -n ${SKILLS_MIRROR_GIT:-} ]]; then
  # A local mirror may lack its largest blobs: read the tree whole (trees only),
  # then write out just the files asked for, with a private index so the mirror
  # is never written to.
  gitdir=$(git -C "$SKILLS_MIRROR_GIT" rev-parse --absolute-git-dir)
  git --git-dir="$gitdir" cat-file -e "$COMMIT^{commit}" 2>/dev/null \
    || { echo "fetch_tree: $SKILLS_MIRROR_GIT does not hold commit $COMMIT" >&2; exit 1; }
  export GIT_INDEX_FILE="$scratch/index"
  git --git-dir="$gitdir" read-tree "$COMMIT"
  if [[ -n $full ]]; then
    git --git-dir="$gitdir" --work-tree="$dest" checkout-index --all
  else
    git --git-dir="$gitdir" ls-files -z \
      | grep -zE '(^|/)SKILL\.md$' \
      | git --git-dir="$gitdir" --work-tree="$dest" checkout-index -z --stdin
  fi
else
  # One commit, no history; blobs are fetched only for the files checked out.
  git init -q "$scratch/repo"
  git -C "$scratch/repo" remote add origin "$URL"
  git -C "$scratch/repo" fetch -q --depth 1 --filter=blob:none origin "$COMMIT"
  if [[ -z $full ]]; then
    git -C "$scratch/repo" sparse-checkout set --no-cone 'SKILL.md'
  fi
  git -C "$scratch/repo" -c advice.detachedHead=false checkout -q "$COMMIT"
  rm -rf "$scratch/repo/.git"
  (cd "$scratch/repo" && tar -cf - .) | (cd "$dest" && tar -xf -)
fi

count=$(find "$dest" -name SKILL.md | wc -l)   # 5 are symbolic links (dangling in the mirror too)
if [[ $count -ne $SKILL_FILES ]]; then
  echo "fetch_tree: $dest holds $count SKILL.md files, expected $SKILL_FILES" >&2
  exit 1
fi
echo "$COMMIT${full:+ full}" > "$marker"
echo "fetch_tree: $count SKILL.md files of agent-skills-mirror@${COMMIT:0:9} in $dest"
