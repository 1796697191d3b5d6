"""Overview models trained leave-one-site-out over the sites of ../shared/sites, cached.

    python benchmarks/loso_models.py [--sites NAME ...] [--jobs N]   # trains what is missing, prints the paths

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
    """A key of everything the models depend on: the package's source (but the page objects of
    poet/, which no training reads), the data's names."""
    digest = hashlib.sha1()
    for path in sorted((ROOT / "scrapy_boilerplate").rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxd") and "poet" not in path.relative_to(ROOT).parts:
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    digest.update(repr((DATASETS, sites)).encode())
    return digest.hexdigest()[:16]


def site_models(sites: list[str], choice: str) -> dict[str, str | None]:
    """Site name -> the overview model a benchmark judges that site's pages with, from its
    ``--models``: "loso" (the model trained without the site), "shipped" (None) or a model file."""
    if choice == "loso":
        return {name: str(path) for name, path in loso_models(sites, log=print, jobs=2).items()}
    return dict.fromkeys(sites, None if choice == "shipped" else str(Path(choice).resolve()))


def loso_models(sites: list[str] | None = None, log=print, jobs: int = 1) -> dict[str, Path]:
    """Site name -> the path of the overview model trained without it (trained when missing, in
    `jobs` processes of one thread each)."""
    from scrapy_boilerplate.training.datasets import load_datasets
    from scrapy_boilerplate.training.overview import collect_evidence

    everyone = site_names()
    folder = CACHE / _key(everyone)
    wanted = sites or everyone
    missing = [s for s in wanted if not (folder / f"{s}.json").is_file()]
    if missing:
        folder.mkdir(parents=True, exist_ok=True)
        log(f"training {len(missing)} leave-one-site-out overview models in {folder}")
        paths = [SHARED / "datasets" / d for d in DATASETS] + [SHARED / "sites" / s for s in everyone]
        evidence = collect_evidence(load_datasets(paths, sites=True))
        tasks = [(evidence, name, everyone, folder) for name in missing]
        if jobs > 1:
            import multiprocessing

            # Forked workers share the evidence read once; one thread each (oversubscribed
            # OpenMP threads slow scikit-learn down many times over).
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                for name in pool.imap_unordered(_train_without, tasks):
                    log(f"  without {name}: done")
        else:
            for task in tasks:
                log(f"  without {_train_without(task)}: done")
    return {name: folder / f"{name}.json" for name in wanted}


def _train_without(task: tuple) -> str:
    from threadpoolctl import threadpool_limits

    from scrapy_boilerplate.training.overview import model_from_evidence

    evidence, name, everyone, folder = task
    with threadpool_limits(1):
        model = model_from_evidence(
            evidence.subset(evidence.sites != name),
            f"benchmarks/loso_models.py (without {name})",
            [*DATASETS, *(s for s in everyone if s != name)],
            log=lambda _message: None,
            splits=("fold",),
        )
    model.save(folder / f"{name}.json")
    return name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="*")
    parser.add_argument("--jobs", type=int, default=2, help="training processes (default: 2)")
    args = parser.parse_args()
    for name, path in loso_models(args.sites, log=lambda m: print(m, file=sys.stderr), jobs=args.jobs).items():
        print(f"{name}\t{path}")


if __name__ == "__main__":
    main()
