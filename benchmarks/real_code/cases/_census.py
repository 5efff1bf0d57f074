"""UCI adult (census) rows for the census cases, generated, in either layout."""

from __future__ import annotations

import pathlib
import random

_WORKCLASS = ["Private", "Self-emp-not-inc", "State-gov", "Federal-gov", "?"]
_EDUCATION = ["Bachelors", "HS-grad", "11th", "Masters", "Some-college"]
_MARITAL = ["Married-civ-spouse", "Divorced", "Never-married", "Widowed"]
_OCCUPATION = ["Adm-clerical", "Exec-managerial", "Handlers-cleaners", "Sales"]
_RELATIONSHIP = ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried"]


def adult_csv(path: pathlib.Path, rows: int, seed: int, separator: str) -> None:
    """`rows` adult rows (15 fields, the label last) joined by `separator`:
    ', ' as the UCI files and the cloud sample's bucket hold them, ',' as the
    wide-and-deep tutorial's data_download.py writes them."""
    rng = random.Random(seed)
    lines = []
    for _ in range(rows):
        education = rng.randrange(len(_EDUCATION))
        rich = rng.random() < 0.2 + 0.1 * education
        fields = [
            rng.randrange(17, 80),
            rng.choice(_WORKCLASS),
            rng.randrange(20000, 400000),
            _EDUCATION[education],
            9 + education,
            rng.choice(_MARITAL),
            rng.choice(_OCCUPATION),
            rng.choice(_RELATIONSHIP),
            rng.choice(["White", "Black", "Asian-Pac-Islander"]),
            rng.choice(["Male", "Female"]),
            rng.choice([0, 0, 0, 2174, 14084]),
            rng.choice([0, 0, 1902]),
            rng.randrange(10, 60),
            rng.choice(["United-States", "Mexico", "India"]),
            ">50K" if rich else "<=50K",
        ]
        lines.append(separator.join(map(str, fields)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
