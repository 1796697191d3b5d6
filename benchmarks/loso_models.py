"""Overview models trained leave-one-site-out over the sites of ../shared/sites, cached.

    python benchmarks/loso_models.py [--sites NAME ...]     # trains what is missing, prints the paths

The crawl side's figures of record are leave-one-site-out: a site is crawled with an overview
model that never saw it. For each of the twenty sites, that model is trained as the shipped one
is (``scrapy-boilerplate train --overview`` on the overview datasets and the sites: README,
"Models"), without the site; its cutoff is chosen by the training's cross-validation on one
site-to-fold split instead of six (twenty trainings). The page evidence is read once for all of
them. Models are kept in $LOSO_CACHE (default /tmp/scrapy_boilerplate_loso), under a key of the
package's source and the data, so a change of the code trains them again.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared"
#: The overview datasets the shipped overview model is trained on, beside the sites.
DATASETS = ("overview-dev", "wcxb-dev")
CACHE = Path(os.environ.get("LOSO_CACHE", "/tmp/scrapy_boilerplate_loso"))


def site_names() -> list[str]:
    return sorted(p.parent.name for p in (SHARED / "sites").glob("*/site.json"))


def _key(sites: list[str]) -> str:
    """A key of everything the models depend on: the package's source, the data's names."""
    digest = hashlib.sha1()
    for path in sorted((ROOT / "scrapy_boilerplate").rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxd"):
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    digest.update(repr((DATASETS, sites)).encode())
    return digest.hexdigest()[:16]


def loso_models(sites: list[str] | None = None, log=print) -> dict[str, Path]:
    """Site name -> the path of the overview model trained without it (trained when missing)."""
    from scrapy_boilerplate.training.datasets import load_datasets
    from scrapy_boilerplate.training.overview import collect_evidence, model_from_evidence
    from scrapy_boilerplate.training.sites import load_site

    everyone = site_names()
    folder = CACHE / _key(everyone)
    wanted = sites or everyone
    missing = [s for s in wanted if not (folder / f"{s}.json").is_file()]
    if missing:
        folder.mkdir(parents=True, exist_ok=True)
        log(f"training {len(missing)} leave-one-site-out overview models in {folder}")
        pages = load_datasets([SHARED / "datasets" / d for d in DATASETS])
        for name in everyone:
            pages.extend(load_site(SHARED / "sites" / name))
        evidence = collect_evidence(pages)
        for name in missing:
            log(f"  without {name}")
            model = model_from_evidence(
                evidence.subset(evidence.sites != name),
                f"benchmarks/loso_models.py (without {name})",
                [*DATASETS, *(s for s in everyone if s != name)],
                log=lambda _message: None,
                splits=("fold",),
            )
            model.save(folder / f"{name}.json")
    return {name: folder / f"{name}.json" for name in wanted}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="*")
    args = parser.parse_args()
    for name, path in loso_models(args.sites, log=lambda m: print(m, file=sys.stderr)).items():
        print(f"{name}\t{path}")


if __name__ == "__main__":
    main()
