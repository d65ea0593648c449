#!/usr/bin/env bash
# The compiled core: build the mypyc wheel in a scratch virtualenv, install it
# in a fresh one, run the vector and property tests against it, and check its
# outputs equal the plain-Python install's (.venv, editable) on every vector
# and corpus URL. Usage: .ci/test_compiled.sh [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/build"
"$work/build/bin/python" -m pip install --quiet "mypy>=1.10" "setuptools>=77" wheel
mkdir -p "$work/src"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$work/src"
(cd "$work/src" && "$work/build/bin/python" -m pip wheel --quiet --no-build-isolation --no-deps -w "$work/dist" .)
wheel=$(ls "$work"/dist/scrapy_urlnorm-*.whl)
case "$wheel" in
*-none-any.whl) echo "compiled core: the wheel is pure Python (no C compiler or mypyc?)" >&2; exit 1 ;;
esac

"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "$wheel" pytest hypothesis
cp -r tests "$work/tests"
mkdir -p "$work/benchmarks" && cp benchmarks/corpus.py benchmarks/dump_outputs.py "$work/benchmarks/"
(
    cd "$work"
    "$work/venv/bin/python" -c "import scrapy_urlnorm.steps as s; assert s.__file__.endswith('.so'), s.__file__"
    "$work/venv/bin/python" -m pytest -q -p no:cacheprovider -o addopts="" \
        tests/test_vectors.py tests/test_steps.py tests/test_properties.py tests/test_fast_path.py \
        tests/test_policy.py tests/test_bulk_escapes.py tests/test_hostile_input.py
    "$work/venv/bin/python" benchmarks/dump_outputs.py tests > "$work/compiled.txt"
)
.venv/bin/python benchmarks/dump_outputs.py tests > "$work/plain.txt"
cat "$work/plain.txt" "$work/compiled.txt"
if [ "$(cut -d' ' -f1 "$work/plain.txt")" != "$(cut -d' ' -f1 "$work/compiled.txt")" ]; then
    echo "compiled core: outputs differ from plain Python" >&2
    exit 1
fi
echo "compiled core: built, installed in a fresh virtualenv, tests pass, outputs identical to plain Python"
