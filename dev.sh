#!/usr/bin/env bash
# dev.sh — the one entry point for building and testing "Inside nn.Module".
#
#   ./dev.sh book    build the Jupyter Book into _build/html/ (installs only what the book needs)
#   ./dev.sh test    run every test (what CI runs, via .ci/run; adds PyTorch, the test oracle)
#   ./dev.sh lab     open the chapters in JupyterLab (with jupyterlab-myst)
#   ./dev.sh setup   only prepare .venv (everything) and the system tools
#   ./dev.sh clean   remove build outputs and caches (keeps .venv)
#   ./dev.sh bench   run the benchmark (--quick for a short run) into bench/results/
#   ./dev.sh gpu     on an NVIDIA GPU: tests in GPU mode and the GPU benchmark
#   ./dev.sh student OUTDIR       write the student edition (book/instructors.md)
#   ./dev.sh grade SUBMISSION     grade a student's edition (a folder or a zip), or a class
#                                 (a folder of them, or a zip of zips): gradebook.csv, feedback/
#   ./dev.sh help    this text
#
# Every command creates .venv/ on first use and reuses it afterwards; pip is
# skipped entirely while requirements.txt and pyproject.toml are unchanged.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CALLER_DIR="$PWD"  # the paths given to `student` and `grade` are relative to it
cd "$ROOT"

VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
# PyTorch is only the test oracle, so it is not in requirements.txt.  This
# exact version matches the local CPU wheel on the project's machines; a range
# would make pip fetch the newest CUDA build (several GB).
TORCH_VERSION="2.13.0"
# CuPy backs nnref's 'cuda' device.  `./dev.sh gpu` installs it into .venv; the CPU
# test run only needs its API (CuPy imports without a GPU), so it goes into a folder of
# its own that the notebooks never see: the book shows nnref as a CPU machine has it.
CUPY_PACKAGE="cupy-cuda12x"
CUPY_SITE="$VENV/cupy-site"
# nnref.distributed runs on MPI: MPICH (the wheel carries the library and mpiexec, so no system
# package or compiler) and mpi4py.  Only the distributed tests (and that chapter's cells) use them.
MPI_PACKAGES=(mpich==5.0.2 mpi4py==4.1.2)
MIN_PYTHON="3.10"

# ---------------------------------------------------------------- output ---
if [[ -t 1 ]]; then
    BOLD=$'\033[1m'; RED=$'\033[31m'; YELLOW=$'\033[33m'; GREEN=$'\033[32m'; RESET=$'\033[0m'
else
    BOLD=""; RED=""; YELLOW=""; GREEN=""; RESET=""
fi
info() { printf '%s\n' "$*"; }
warn() { printf '%sWARNING:%s %s\n' "$YELLOW" "$RESET" "$*" >&2; }
die()  { printf '%sERROR:%s %s\n' "$RED" "$RESET" "$*" >&2; exit 1; }

now() { date +%s.%N 2>/dev/null || date +%s; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# run_step NAME COMMAND...
# Print a header, run the command, then print how it went and how long it
# took.  The command runs in a subshell with errexit in force, so a failing
# line inside a step function stops that step.  (Bash ignores `set -e` inside
# any function called from an `if`/`||` context, so steps are never called
# that way: run_step itself always returns 0 and reports through STEP_RC and
# FAILED_STEPS.)
FAILED_STEPS=()
STEP_RC=0
run_step() {
    local name="$1"; shift
    local start
    start="$(now)"
    printf '\n%s==> [%s]%s\n' "$BOLD" "$name" "$RESET"
    set +e
    ( set -e; "$@" )
    STEP_RC=$?
    set -e
    if [[ $STEP_RC -eq 0 ]]; then
        printf '%s<== [%s] ok (%s)%s\n' "$GREEN" "$name" "$(elapsed "$start")" "$RESET"
    else
        printf '%s<== [%s] FAILED with exit code %d (%s)%s\n' "$RED" "$name" "$STEP_RC" "$(elapsed "$start")" "$RESET"
        FAILED_STEPS+=("$name")
    fi
    return 0
}

# run_required_step NAME COMMAND...   Like run_step, but stop on failure.
run_required_step() {
    run_step "$@"
    [[ $STEP_RC -eq 0 ]] || exit "$STEP_RC"
}

# ------------------------------------------------------------ system tools ---
is_root() { [[ "$(id -u)" -eq 0 ]]; }

find_chromium() {
    local c
    for c in chromium chromium-browser google-chrome google-chrome-stable; do
        if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
    done
    return 1
}

# The site serves MathJax 3 itself (book/_ext/offline_mathjax.py), from npm's package
# (Debian's libjs-mathjax is MathJax 2, which the theme does not lay out), installed into .venv.
MATHJAX_VERSION="3.2.2"
MATHJAX_DIR="${NNREF_MATHJAX_DIR:-$VENV/mathjax/node_modules/mathjax}"

# Python's venv module with its pip bootstrap (Debian ships it apart, in python3-venv).
has_venv_module() {
    local py
    py="$(find_python)" || return 0  # no Python at all: ensure_venv says so
    "$py" -c "import ensurepip, venv" >/dev/null 2>&1
}

# missing_system_tools WANT_CHROMIUM: sets MISSING (descriptions) and DEBS (package names)
missing_system_tools() {
    MISSING=() DEBS=()
    if ! command -v dot >/dev/null 2>&1; then MISSING+=("graphviz (the 'dot' program)"); DEBS+=(graphviz); fi
    if ! has_venv_module; then MISSING+=("python3-venv (Python's venv module)"); DEBS+=(python3-venv); fi
    if [[ ! -f "$MATHJAX_DIR/es5/tex-chtml.js" ]] && ! command -v npm >/dev/null 2>&1; then
        MISSING+=("npm (installs MathJax 3 for the site's formulas, offline)"); DEBS+=(npm)
    fi
    if [[ $1 -eq 1 ]] && ! find_chromium >/dev/null; then MISSING+=("chromium"); DEBS+=(chromium); fi
    # The grader (and its tests) run students' code inside bubblewrap's sandbox (book/instructors.md).
    if [[ $2 -eq 1 ]] && ! command -v bwrap >/dev/null 2>&1; then MISSING+=("bubblewrap (the 'bwrap' program)"); DEBS+=(bubblewrap); fi
    # The browser tests' screenshots show the glossary's Chinese terms, which need a CJK font.
    if [[ $1 -eq 1 ]] && command -v fc-list >/dev/null 2>&1 && [[ -z "$(fc-list :lang=zh-cn 2>/dev/null)" ]]; then
        MISSING+=("a Chinese font"); DEBS+=(fonts-wqy-microhei)
    fi
    return 0
}

# ensure_system_tools [chromium] [sandbox]
# Graphviz's `dot` renders the computation graphs, MathJax the site's formulas;
# Chromium is only needed by the browser tests.  As root with apt-get we install
# what is missing; otherwise we stop and say how to install it.
ensure_system_tools() {
    local want_chromium=0
    [[ " $* " == *" chromium "* ]] && want_chromium=1
    local want_sandbox=0
    [[ " $* " == *" sandbox "* ]] && want_sandbox=1

    missing_system_tools "$want_chromium" "$want_sandbox"
    if [[ ${#DEBS[@]} -gt 0 ]] && is_root && command -v apt-get >/dev/null 2>&1; then
        info "installing with apt-get: ${DEBS[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends "${DEBS[@]}"
        # Check again below: the install must have put the programs in place.
        missing_system_tools "$want_chromium" "$want_sandbox"
    fi
    local missing=("${MISSING[@]}") debs=("${DEBS[@]}")

    if [[ ${#debs[@]} -eq 0 ]]; then
        info "system tools: dot $(dot -V 2>&1 | awk '{print $5}'), MathJax in $MATHJAX_DIR$([[ $want_chromium -eq 1 ]] && printf ', %s' "$(find_chromium)")"
        return 0
    fi

    local brew=() d sudo="sudo "
    is_root && sudo=""
    for d in "${debs[@]}"; do
        case "$d" in
            graphviz) brew+=("brew install graphviz") ;;
            chromium) brew+=("brew install --cask chromium") ;;
            npm) brew+=("brew install node") ;;
        esac
    done
    {
        printf 'Missing system tools: %s\n' "${missing[*]}"
        printf 'Install them with one of these, then run this command again:\n'
        printf '  Debian/Ubuntu:  %sapt-get install %s\n' "$sudo" "${debs[*]}"
        printf '  macOS:          %s\n' "$(IFS='&'; printf '%s' "${brew[*]}" | sed 's/&/ \&\& /g')"
        if [[ " ${debs[*]} " == *" graphviz "* ]]; then
            printf '  conda:          conda install -c conda-forge graphviz\n'
        fi
    } >&2
    exit 1
}

# ------------------------------------------------------------ virtualenv ---
find_python() {
    local c
    for c in "${PYTHON:-}" python3 python; do
        [[ -n "$c" ]] || continue
        command -v "$c" >/dev/null 2>&1 || continue
        if "$c" -c "import sys; sys.exit(0 if sys.version_info >= (${MIN_PYTHON/./, }) else 1)" 2>/dev/null; then
            command -v "$c"; return 0
        fi
    done
    return 1
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum | awk '{print $1}'
    else shasum -a 256 | awk '{print $1}'
    fi
}

# install_stamp PART: a file whose name changes whenever anything that decides that
# part of the environment changes.  Parts: book (requirements.txt, pyproject.toml, and
# whether nnref/ exists yet: an editable install made before the package existed has
# nothing to point at), oracle (the torch pin, CuPy, MPICH and mpi4py), lab (requirements-lab.txt).
install_stamp() {
    local hash
    hash="$({
        case "$1" in
            book)   cat requirements.txt pyproject.toml
                    [[ -f nnref/__init__.py ]] && printf 'nnref package present\n' ;;
            oracle) printf 'torch==%s\n%s in %s\n%s\n' "$TORCH_VERSION" "$CUPY_PACKAGE" "$CUPY_SITE" "${MPI_PACKAGES[*]}" ;;
            lab)    cat requirements-lab.txt ;;
        esac
        true
    } | sha256_of)"
    printf '%s/.installed-%s-%s' "$VENV" "$1" "$hash"
}

install_part() {
    case "$1" in
        book)
            "$VPY" -m pip install --upgrade pip
            "$VPY" -m pip install -r requirements.txt
            "$VPY" -m pip install -e . ;;
        oracle)
            if ! "$VPY" -m pip install "torch==$TORCH_VERSION"; then
                warn "could not install torch==$TORCH_VERSION; tests that compare against PyTorch will be skipped"
            fi
            rm -rf "$CUPY_SITE"
            if ! "$VPY" -m pip install --no-deps --target "$CUPY_SITE" "$CUPY_PACKAGE" cuda-pathfinder; then
                rm -rf "$CUPY_SITE"
                warn "could not install $CUPY_PACKAGE; the check that CuPy has every function nnref calls will be skipped"
            fi
            if ! "$VPY" -m pip install "${MPI_PACKAGES[@]}"; then
                warn "could not install ${MPI_PACKAGES[*]}; the multi-process tests of nnref.distributed will be skipped"
            fi ;;
        lab)
            "$VPY" -m pip install -r requirements-lab.txt ;;
    esac
}

# ensure_venv [oracle] [lab]: .venv with what the book needs, plus the parts named.
ensure_venv() {
    # A .venv whose pip does not run was left half-made (say, by a venv module without
    # ensurepip): start it again rather than fail on every later run.
    if [[ -e "$VENV" || -L "$VENV" ]] && ! "$VPY" -m pip --version >/dev/null 2>&1; then
        warn ".venv is incomplete (its pip does not run): removing it and creating it again"
        rm -rf "$VENV"
    fi
    if [[ ! -x "$VPY" ]]; then
        local py
        py="$(find_python)" || die "Python >= $MIN_PYTHON is needed to create .venv, but none was found
(looked for \$PYTHON, python3, python; found: $(python3 --version 2>&1 || echo none)).
Install a newer Python (e.g. '$(is_root || printf 'sudo ')apt-get install python3 python3-venv' or 'brew install python'),
or point PYTHON at one: PYTHON=/path/to/python3.12 ./dev.sh setup"
        info "creating .venv with $py ($("$py" --version 2>&1))"
        if ! "$py" -m venv "$VENV"; then
            rm -rf "$VENV"
            die "'$py -m venv' failed. On Debian/Ubuntu install the venv module: $(is_root || printf 'sudo ')apt-get install python3-venv"
        fi
    fi
    "$VPY" -c "import sys; sys.exit(0 if sys.version_info >= (${MIN_PYTHON/./, }) else 1)" \
        || die ".venv uses $("$VPY" --version 2>&1), but Python >= $MIN_PYTHON is needed: remove .venv and run again"

    local part stamp
    for part in book "$@"; do
        stamp="$(install_stamp "$part")"
        if [[ -f "$stamp" ]]; then
            info "python packages ($part): up to date"
        else
            info "installing python packages ($part) into .venv"
            install_part "$part"
            rm -f "$VENV/.installed-$part-"*
            touch "$stamp"
        fi
    done

    # MathJax 3 for the site (npm's package; the site copies it, so pages need no network).
    if [[ ! -f "$MATHJAX_DIR/es5/tex-chtml.js" ]]; then
        info "installing MathJax $MATHJAX_VERSION (npm) into $MATHJAX_DIR"
        npm install --no-audit --no-fund --prefix "$VENV/mathjax" "mathjax@$MATHJAX_VERSION"
    fi
    export NNREF_MATHJAX_DIR="$MATHJAX_DIR"

    # A kernel named python3 inside the venv, so jupyter and nbval run the
    # notebooks with this environment's packages (nnref included).
    # (ipykernel's own wheel ships a kernel.json that runs plain `python`, so
    # check that ours, with this venv's interpreter, is the one in place.)
    local kernel_json="$VENV/share/jupyter/kernels/python3/kernel.json"
    if ! grep -qF "\"$VPY\"" "$kernel_json" 2>/dev/null; then
        "$VPY" -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (nnref .venv)"
    fi
}

# setup [chromium] [sandbox] [oracle] [lab]: the book's environment plus the parts named.
setup() {
    local system=() python=() word
    for word in "$@"; do
        case "$word" in chromium|sandbox) system+=("$word") ;; *) python+=("$word") ;; esac
    done
    run_required_step "system tools" ensure_system_tools "${system[@]}"
    run_required_step "python environment" ensure_venv "${python[@]}"
    # Child processes (jupyter-book, pytest, kernels) see the venv first.
    export VIRTUAL_ENV="$VENV"
    export PATH="$VENV/bin:$PATH"
}

# ----------------------------------------------------------------- steps ---
# Each step is a function; commands below string them together.

step_inventories() {
    # Local intersphinx inventories (see the comment in _config.yml).
    "$VPY" book/_inventories/build.py
}

step_build_book() {
    # --all: rebuild every page, so warnings from unchanged pages are reported
    # again (an incremental build would silently pass after a failed one).
    "$VENV/bin/jupyter-book" build . --all -W -n --keep-going
}

step_build_student_book() {
    # The same book with the exercises' solutions hidden; its config is _config.yml
    # plus hide_solutions, generated so that there is no second file to keep in sync.
    PYTHONPATH="$ROOT" "$VPY" -m coursekit site-config _build/student/_config.yml
    "$VENV/bin/jupyter-book" build . --config _build/student/_config.yml --path-output _build/student \
        --all -W -n --keep-going
}

step_all_tests() {
    # Three pytest runs side by side on the two cores, split by what they wait on: the pages
    # (the site and JupyterLab in Chromium), which mostly wait on the browser and the server,
    # with the programs run on nnref and PyTorch (tests/programs, tests/programs_api: ~300 s
    # of subprocesses, moved here once the site's tests crawled each width once);
    # the course's grader, which waits on its sandboxes; and everything else (the package
    # tests, the chapters under nbval: stored outputs must reproduce, the PyTorch parity check
    # of each chapter), the longest.  (nbval's kernel also runs the exercises' self-check probes of
    # tests/book/test_exercises.py, conftest.py: so tests and book stay in one run.)  The two
    # shorter runs then go on with the next steps' work, the runs as on lower CPU capabilities
    # and under the other Pythons, whose outputs and exit codes those steps collect (files:
    # run_step's subshell cannot `wait` for jobs).
    mkdir -p _build
    rm -f _build/{pages,course,capabilities,other-pythons}.rc
    local cupy_site=""
    [[ -d "$CUPY_SITE" ]] && cupy_site="$CUPY_SITE"
    # (Only the three runs see these: the other Pythons cannot import .venv's CuPy.)
    local site_env=(NNREF_SITE_DIR="$ROOT/_build/html" NNREF_CUPY_SITE="$cupy_site")
    {
        set +e
        env "${site_env[@]}" "$VPY" -m pytest tests/site tests/programs tests/programs_api -p no:cacheprovider \
            --junitxml=_build/test-results-pages.xml \
            > _build/pages-tests.log 2>&1
        echo $? > _build/pages.rc
        ( set -e; step_capabilities ) > _build/capabilities.log 2>&1
        echo $? > _build/capabilities.rc
    } &
    {
        set +e
        env "${site_env[@]}" "$VPY" -m pytest tests/course -p no:cacheprovider --junitxml=_build/test-results-course.xml \
            > _build/course-tests.log 2>&1
        echo $? > _build/course.rc
        ( set -e; step_other_pythons ) > _build/other-pythons.log 2>&1
        echo $? > _build/other-pythons.rc
    } &
    local rc=0
    env "${site_env[@]}" "$VPY" -m pytest tests book --ignore=tests/site --ignore=tests/course \
        --ignore=tests/programs --ignore=tests/programs_api \
        --nbval --nbval-current-env --nbval-sanitize-with .ci/nbval_sanitize.cfg \
        -p no:cacheprovider --junitxml=_build/test-results.xml || rc=1
    wait_for_file _build/course.rc
    printf '\n--- the course grader (tests/course) ---\n'
    cat _build/course-tests.log
    wait_for_file _build/pages.rc
    printf '\n--- the pages: the site and JupyterLab in Chromium (tests/site), the programs ---\n'
    cat _build/pages-tests.log
    [[ $rc -eq 0 && "$(cat _build/course.rc)" == 0 && "$(cat _build/pages.rc)" == 0 ]]
}

wait_for_file() {
    while [[ ! -s "$1" ]]; do sleep 1; done
}

step_capabilities() {
    # The bit-for-bit tests again as on a CPU of each lower capability (AVX2, DEFAULT): PyTorch,
    # nnref, oneDNN, MKL, OpenBLAS and numpy told the same (tests/capabilities.py), so a machine
    # without AVX-512 is covered from one with it.
    "$VPY" tests/capabilities.py -q -p no:cacheprovider --junitxml=_build/test-results-{capability}.xml
}

# Learners bring their own Python: the PyTorch-free core tests also run under every other
# Python >= MIN_PYTHON found on PATH or under pyenv, each in a small venv of its own
# (.venv/pythons/X.Y: numpy, ml_dtypes and pytest, no torch), with nnref's own
# DeprecationWarnings as errors.  Second-order checks are left to the main run; the newest
# Python also runs the finite-difference gradient checks, which the others skip.
other_pythons() {
    local own candidate version seen=" "
    own="$("$VPY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    for candidate in $(compgen -c python3. | grep -E '^python3\.[0-9]+$' | sort -u) \
            "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3; do
        version="$("$candidate" -c "import sys; assert sys.version_info >= (${MIN_PYTHON/./, }); print('%d.%d' % sys.version_info[:2])" 2>/dev/null)" || continue
        [[ "$version" == "$own" || "$seen" == *" $version "* ]] && continue
        seen+="$version "
        printf '%s %s\n' "$version" "$(command -v "$candidate")"
    done | sort -t. -k2,2n
}

step_other_pythons() {
    local found version python venv newest stamp subset failed=()
    found="$(other_pythons)"
    if [[ -z "$found" ]]; then
        info "no other Python >= $MIN_PYTHON found (PATH, pyenv): skipped"
        return 0
    fi
    newest="$(tail -n 1 <<<"$found" | cut -d' ' -f1)"
    while read -r version python; do
        venv="$VENV/pythons/$version"
        stamp="$venv/.installed-$(grep -E '^(numpy|ml_dtypes|pytest|pytest-timeout|hypothesis)\b' requirements.txt | sha256_of)"
        if [[ ! -f "$stamp" ]] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
            info "Python $version ($python): creating $venv"
            rm -rf "$venv"
            "$python" -m venv "$venv"
            grep -E '^(numpy|ml_dtypes|pytest|pytest-timeout|hypothesis)\b' requirements.txt \
                | sed 's/#.*//' > "$venv/requirements.txt"
            "$venv/bin/python" -m pip install --quiet -r "$venv/requirements.txt"
            touch "$stamp"
        fi
        subset=(tests/core --ignore=tests/core/test_second_order.py)
        [[ "$version" == "$newest" ]] || subset+=(--ignore=tests/core/test_gradients.py)
        info "Python $version, numpy $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)'): ${subset[*]}"
        PYTHONPATH="$ROOT" "$venv/bin/python" -m pytest "${subset[@]}" -q -p no:cacheprovider \
            -o "filterwarnings=error::DeprecationWarning:nnref" || failed+=("$version")
    done <<<"$found"
    [[ ${#failed[@]} -eq 0 ]] || { printf 'core tests failed under Python %s\n' "${failed[*]}" >&2; return 1; }
}

step_wait_capabilities() {
    wait_for_file _build/capabilities.rc
    cat _build/capabilities.log
    return "$(cat _build/capabilities.rc)"
}

step_wait_other_pythons() {
    wait_for_file _build/other-pythons.rc
    cat _build/other-pythons.log
    return "$(cat _build/other-pythons.rc)"
}

step_bench() {
    # Same interpreter as the tests; bench.run pins the BLAS thread count itself.
    "$VPY" -m bench.run "$@"
}

step_gpu_install() {
    # Without a driver there is nothing to test.  (The notebooks of ./dev.sh test show nnref
    # as a machine without a GPU has it, whether or not CuPy is in .venv.)
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L \
        || { printf 'No NVIDIA GPU here (nvidia-smi finds none): the GPU mode needs one.\n' >&2; exit 1; }
    "$VPY" -c 'import cupy' 2>/dev/null || "$VPY" -m pip install "$CUPY_PACKAGE"
    "$VPY" - <<'PY'
import nnref
from nnref._cupy import cuda_unavailable_reason
reason = cuda_unavailable_reason()
if reason:
    raise SystemExit(f"no usable GPU: {reason}")
import cupy
print(f"GPU: {nnref.cuda.get_device_name()}, CuPy {cupy.__version__}")
PY
}

step_gpu_tests() {
    # The device tests (tests/device) on 'cuda', each result compared with the CPU path: every
    # public name of nnref, the errors of the device API and chapter 15's training.  The rest of
    # the suite never touches the device and runs in ./dev.sh test.
    mkdir -p bench/results
    NNREF_TEST_DEVICE=cuda NNREF_CUPY_SITE="" "$VPY" -m pytest tests/device -p no:cacheprovider \
        --junitxml=bench/results/gpu-tests.xml
}

step_gpu_bench() {
    "$VPY" -m bench.gpu --tests bench/results/gpu-tests.xml "$@"
}

print_test_totals() {
    # The last line of the run: totals over everything pytest ran.
    # (the three runs' _build/test-results*.xml and each capability's test-results-CAPABILITY.xml)
    "$VPY" - <<'PY'
import glob
import xml.etree.ElementTree as ET
suites = []
for path in sorted(glob.glob("_build/test-results*.xml")):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        continue
    suites.extend(root if root.tag == "testsuites" else [root])
if not suites:
    raise SystemExit(0)
count = lambda key: sum(int(s.get(key, 0)) for s in suites)
failed = count("failures") + count("errors")
passed = count("tests") - failed - count("skipped")
print(f"tests: {passed} passed, {failed} failed, {count('skipped')} skipped")
PY
}

# -------------------------------------------------------------- commands ---
cmd_setup() {
    setup chromium sandbox oracle lab
}

cmd_book() {
    setup
    run_required_step "intersphinx inventories" step_inventories
    local index="$ROOT/_build/html/index.html" serve="_build/html"
    if [[ "${1:-}" == "--student" ]]; then
        run_required_step "build the student book (solutions hidden)" step_build_student_book
        index="$ROOT/_build/student/_build/html/index.html" serve="_build/student/_build/html"
    else
        run_required_step "build book" step_build_book
    fi
    printf '\nThe site is at %s\n' "$index"
    printf 'Open it with:  xdg-open %s   (macOS: open %s)\n' "$index" "$index"
    printf 'or serve it:   %s -m http.server -d %s   and visit http://localhost:8000\n' "$VPY" "$serve"
}

cmd_test() {
    setup chromium sandbox oracle lab
    # Every step runs even if an earlier one failed; the command fails if any did.
    rm -f _build/test-results*.xml
    run_step "intersphinx inventories" step_inventories
    run_step "build book (warnings are errors)" step_build_book
    # (The two later steps run inside the first one's shorter runs: step_all_tests.)
    run_step "tests, notebooks, PyTorch parity, site in Chromium" step_all_tests
    run_step "bit-for-bit tests as on lower CPU capabilities" step_wait_capabilities
    run_step "PyTorch-free tests under the other Pythons found" step_wait_other_pythons

    printf '\n'
    if [[ ${#FAILED_STEPS[@]} -gt 0 ]]; then
        printf '%sFAILED steps:%s\n' "$RED" "$RESET"
        printf '  - %s\n' "${FAILED_STEPS[@]}"
        print_test_totals
        exit 1
    fi
    printf '%sAll test steps passed.%s\n' "$GREEN" "$RESET"
    print_test_totals
}

cmd_lab() {
    setup lab
    # The chapters are this repository's own, stored with their outputs: trusting them lets
    # JupyterLab show their graphs (SVG) and listings (HTML) before anything is re-run.
    run_required_step "trust the chapters" "$VENV/bin/jupyter" trust book/*.ipynb
    # lab/overrides.json: the lab's own defaults (no news pop-up, no update check over the network).
    local flags=(--ServerApp.root_dir="$ROOT" --ServerApp.default_url=/lab/tree/book/01_tensors.ipynb
                 --LabApp.app_settings_dir="$ROOT/lab")
    is_root && flags+=(--allow-root)
    printf '\nJupyterLab opens the first chapter; the others are in book/ (Ctrl+C stops the server).\n'
    exec "$VENV/bin/jupyter" lab "${flags[@]}" "$@"
}

cmd_clean() {
    # Build outputs and caches only; .venv is kept (delete it to start over).
    rm -rf _build .pytest_cache .hypothesis
    find . -path ./.venv -prune -o -type d \( -name __pycache__ -o -name .ipynb_checkpoints \) -print0 \
        | xargs -0 rm -rf
    info "removed _build/, caches and __pycache__/ (kept .venv/)"
}

cmd_bench() {
    setup oracle
    run_required_step "benchmark (python -m bench.run $*)" step_bench "$@"
}

cmd_gpu() {
    if [[ -n "${NNREF_PYTHON:-}" ]]; then
        # A Python that already has CuPy, numpy, pytest and hypothesis (a GPU machine with no
        # package index to install from): used as it is, without .venv.
        VPY="$(command -v "$NNREF_PYTHON")" || die "NNREF_PYTHON=$NNREF_PYTHON is not a command"
    else
        setup oracle
    fi
    run_required_step "install $CUPY_PACKAGE and find the GPU" step_gpu_install
    run_step "tests in GPU mode (NNREF_TEST_DEVICE=cuda)" step_gpu_tests
    run_required_step "GPU benchmark (python -m bench.gpu $*)" step_gpu_bench "$@"
    printf '\nRecorded: bench/results/gpu.json, gpu.md, gpu-tests.xml. Commit them; book/16_gpu.ipynb\n'
    printf 'shows them (re-run it with ./dev.sh execute book/16_gpu.ipynb on the CPU machine).\n'
    [[ ${#FAILED_STEPS[@]} -eq 0 ]] || { printf '%sFAILED steps: %s%s\n' "$RED" "${FAILED_STEPS[*]}" "$RESET"; exit 1; }
}

cmd_execute() {
    setup
    "$VPY" tools/execute_notebooks.py "$@"
}

# coursekit (the instructor tooling) is not installed: it runs from this repository, on it.
in_caller_dir() { cd "$CALLER_DIR" && PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" COURSEKIT_ROOT="$ROOT" "$@"; }

cmd_student() {
    [[ $# -ge 1 ]] || die "usage: ./dev.sh student OUTDIR [--force]"
    setup
    run_required_step "student edition ($*)" in_caller_dir "$VPY" -m coursekit student "$@"
}

cmd_grade() {
    [[ $# -ge 1 ]] || die "usage: ./dev.sh grade SUBMISSION_OR_CLASS [--out DIR] [--timeout SECONDS] [--roster CSV]"
    setup sandbox
    run_required_step "grade $1" in_caller_dir "$VPY" -m coursekit grade "$@"
}

usage() {
    cat <<EOF
Usage: ./dev.sh COMMAND

Commands:
  book    Prepare .venv and Graphviz, then build the book with
          'jupyter-book build . --all -W -n --keep-going' (warnings are errors).
          The site lands in _build/html/ (open _build/html/index.html).
          With --student: the students' site, solutions hidden, in
          _build/student/_build/html/.
          Installs only what the book needs (requirements.txt, nnref; no
          PyTorch, no CuPy) and Graphviz, MathJax 3 (npm's mathjax, so the
          site's formulas need no network) and python3-venv when missing.
  test    Prepare .venv (adding torch==$TORCH_VERSION, the test oracle, and
          JupyterLab), Graphviz and Chromium, then run every test: pytest tests/
          and the notebooks under book/ with nbval; the bit-for-bit tests
          again as on lower CPU capabilities (tests/capabilities.py); then the
          PyTorch-free core tests under every other Python >= $MIN_PYTHON found
          (PATH, pyenv).
          The release check (tests/release: these commands in a fresh Debian,
          as root with debootstrap) is left out; run it with
          '.venv/bin/python -m pytest -m release tests/release'.
  lab [JUPYTER-LAB-OPTIONS]
          Open the chapters in JupyterLab with jupyterlab-myst
          (requirements-lab.txt), so they read as on the site: notes,
          cross-references, math, exercises and nnref's listings.
  setup   Only prepare everything: .venv with the book's, the tests' and the
          lab's packages, the 'python3' Jupyter kernel, Graphviz, MathJax and
          Chromium.
  execute [NOTEBOOK ...]
          Re-run chapters in place (all of book/ by default) so their stored
          outputs are fresh; nbval then checks them in 'test'.
  bench [--quick] [--threads N] [--out DIR] [--profile]
          Run the benchmark: nnref vs hand-written numpy vs PyTorch (MLP step,
          per-op overhead, long chains, peak memory, a scalar engine). Writes
          results.json, results.md, findings.md, chart.png to bench/results/ (or DIR);
          --quick is the short run CI does, --profile shows where nnref spends
          an MLP step.
  student OUTDIR [--force]
          Write the student edition into OUTDIR: the chapters and nnref with
          every marked solution replaced by "# YOUR CODE HERE", the visible
          tests and a README for students (see book/instructors.md).
  grade SUBMISSION_OR_CLASS [--out DIR] [--timeout SECONDS] [--jobs N] [--task ID] [--roster CSV] [--unsafe]
          Grade a student's edition (a folder or a zip), or a class (a folder
          of them, or a zip of zips), in bubblewrap sandboxes, every task on its
          own with its visible and hidden tests and a time limit per test.
          One: report.md, report.json, feedback.md in DIR (default grades/NAME).
          A class: gradebook.csv, feedback/ID.md, report.md in DIR (default
          grades/); run again to resume.
  gpu [--quick]
          On a machine with an NVIDIA GPU: install $CUPY_PACKAGE, run the device
          tests (tests/device) on 'cuda' (NNREF_TEST_DEVICE=cuda), and time the
          MLP step on the GPU against the CPU and PyTorch CUDA at batch 512 and
          8192. Writes bench/results/gpu.json, gpu.md and gpu-tests.xml, which
          the GPU chapter shows. NNREF_PYTHON=python3 ./dev.sh gpu uses that
          Python as it is (it must have CuPy, numpy, pytest and hypothesis).
  clean   Remove _build/ and test caches (keeps .venv/).
  help    Show this text.

System packages are installed with apt-get when running as root; otherwise
the command stops and prints the install lines.
Set PYTHON=/path/to/python3 to choose the interpreter used to create .venv.
EOF
}

main() {
    local cmd="${1:-help}"
    [[ $# -gt 0 ]] && shift
    case "$cmd" in
        setup) cmd_setup "$@" ;;
        book)  cmd_book "$@" ;;
        test)  cmd_test "$@" ;;
        lab)   cmd_lab "$@" ;;
        clean) cmd_clean "$@" ;;
        execute) cmd_execute "$@" ;;
        bench) cmd_bench "$@" ;;
        gpu)   cmd_gpu "$@" ;;
        student) cmd_student "$@" ;;
        grade) cmd_grade "$@" ;;
        help|-h|--help) usage ;;
        *) usage >&2; die "unknown command: $cmd" ;;
    esac
}

main "$@"
