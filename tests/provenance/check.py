"""Read every develop output a test run wrote (tests/provenance/run.sh) with c2pa-python, a
C2PA reader that is not ours, and check what expected.json says of each file: an intact frame
reads Valid (its only failure the untrusted local signer), with the action, the IPTC digital
source type and the number of ingredients; a frame altered after signing reads Invalid with a
data-hash mismatch.

    python check.py DIR    # DIR/<backend>/expected.json and the files it names
"""

import json
import pathlib
import sys

import c2pa

IPTC = "http://cv.iptc.org/newscodes/digitalsourcetype/"


def failures(reader):
    results = reader.get_validation_results() or {}
    return [f["code"] for f in results.get("activeManifest", {}).get("failure", [])]


def check(path, want):
    reader = c2pa.Reader(str(path))
    state = reader.get_validation_state()
    codes = failures(reader)
    if not want["valid"]:
        if state != "Invalid" or "assertion.dataHash.mismatch" not in codes:
            return f"altered after signing, yet read {state} with failures {codes}"
        return None
    if state != "Valid" or any(code != "signingCredential.untrusted" for code in codes):
        return f"read {state} with failures {codes}"
    manifest = reader.get_active_manifest() or {}
    actions = [
        action
        for assertion in manifest.get("assertions", [])
        if assertion.get("label", "").startswith("c2pa.actions")
        for action in assertion["data"].get("actions", [])
    ]
    ours = [a for a in actions if a.get("action") == want["action"]]
    if not ours:
        return f"no {want['action']} among {[a.get('action') for a in actions]}"
    source = ours[0].get("digitalSourceType")
    if source != IPTC + want["digitalSourceType"]:
        return f"digital source type {source}, expected {IPTC + want['digitalSourceType']}"
    if ours[0].get("parameters", {}).get("tool") != want["tool"]:
        return f"the action names tool {ours[0].get('parameters')}, expected {want['tool']}"
    ingredients = manifest.get("ingredients", [])
    if len(ingredients) != want["ingredients"]:
        return f"{len(ingredients)} ingredients, expected {want['ingredients']}"
    if want["action"] == "c2pa.edited" and ingredients[0].get("relationship") != "parentOf":
        return f"the edited image is not the parent: {ingredients[0]}"
    return None


def main():
    root = pathlib.Path(sys.argv[1])
    sets = sorted(p.parent for p in root.glob("*/expected.json"))
    if not sets:
        sys.exit(f"no expected.json under {root}: the test run wrote nothing")
    problems, read = [], 0
    for folder in sets:
        for want in json.loads((folder / "expected.json").read_text()):
            path = folder / want["file"]
            problem = check(path, want)
            read += 1
            verdict = "ok" if problem is None else f"FAIL: {problem}"
            print(f"{folder.name}/{want['file']}: {verdict}")
            if problem:
                problems.append(f"{folder.name}/{want['file']}: {problem}")
    print(f"c2pa-python {c2pa.sdk_version()} read {read} files from {len(sets)} run(s); {len(problems)} problem(s)")
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
