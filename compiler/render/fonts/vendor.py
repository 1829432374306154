"""Rebuild the vendored font pool from Debian font packages (run by hand, never at render time).

    mkdir /tmp/fontdl && cd /tmp/fontdl && apt-get download <the packages below>
    for d in *.deb; do dpkg-deb -x "$d" x/; done
    python compiler/render/fonts/vendor.py /tmp/fontdl/x

Each family gets a folder with its regular (and bold, where the family has one) face and LICENSE: the package's
Debian copyright file, plus the full licence text it refers to in /usr/share/common-licenses where it only names it.
Glyph coverage in fonts.yaml is measured here with skia and checked again by tests/test_variety_fonts.py.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FONTS = "usr/share/fonts"
TEXMF = "usr/share/texmf/fonts/opentype/public/tex-gyre"

# slug, family, classes, Debian package, licence, regular, bold (None: skia emboldens the regular face)
TABLE = [
    ("dejavu-sans", "DejaVu Sans", ["sans"], "fonts-dejavu-core", "Bitstream-Vera", "truetype/dejavu/DejaVuSans.ttf", "truetype/dejavu/DejaVuSans-Bold.ttf"),
    ("dejavu-serif", "DejaVu Serif", ["serif"], "fonts-dejavu-core", "Bitstream-Vera", "truetype/dejavu/DejaVuSerif.ttf", "truetype/dejavu/DejaVuSerif-Bold.ttf"),
    ("dejavu-sans-mono", "DejaVu Sans Mono", ["mono"], "fonts-dejavu-core", "Bitstream-Vera", "truetype/dejavu/DejaVuSansMono.ttf", "truetype/dejavu/DejaVuSansMono-Bold.ttf"),
    ("liberation-serif", "Liberation Serif", ["serif"], "fonts-liberation2", "OFL-1.1", "truetype/liberation2/LiberationSerif-Regular.ttf", "truetype/liberation2/LiberationSerif-Bold.ttf"),
    ("liberation-mono", "Liberation Mono", ["mono"], "fonts-liberation2", "OFL-1.1", "truetype/liberation2/LiberationMono-Regular.ttf", "truetype/liberation2/LiberationMono-Bold.ttf"),
    ("arimo", "Arimo", ["sans"], "fonts-croscore", "Apache-2.0", "truetype/croscore/Arimo-Regular.ttf", "truetype/croscore/Arimo-Bold.ttf"),
    ("carlito", "Carlito", ["sans"], "fonts-crosextra-carlito", "OFL-1.1", "truetype/crosextra/Carlito-Regular.ttf", "truetype/crosextra/Carlito-Bold.ttf"),
    ("caladea", "Caladea", ["serif"], "fonts-crosextra-caladea", "Apache-2.0", "truetype/crosextra/Caladea-Regular.ttf", "truetype/crosextra/Caladea-Bold.ttf"),
    ("open-sans", "Open Sans", ["sans"], "fonts-open-sans", "Apache-2.0", "truetype/open-sans/OpenSans-Regular.ttf", "truetype/open-sans/OpenSans-Bold.ttf"),
    ("lato", "Lato", ["sans"], "fonts-lato", "OFL-1.1", "truetype/lato/Lato-Regular.ttf", "truetype/lato/Lato-Bold.ttf"),
    ("cantarell", "Cantarell", ["sans"], "fonts-cantarell", "OFL-1.1", "opentype/cantarell/Cantarell-Regular.otf", "opentype/cantarell/Cantarell-Bold.otf"),
    ("inter", "Inter", ["sans"], "fonts-inter", "OFL-1.1", "opentype/inter/Inter-Regular.otf", "opentype/inter/Inter-Bold.otf"),
    ("b612", "B612", ["sans"], "fonts-b612", "OFL-1.1", "opentype/b612/B612-Regular.otf", "opentype/b612/B612-Bold.otf"),
    ("b612-mono", "B612 Mono", ["mono"], "fonts-b612", "OFL-1.1", "opentype/b612/B612Mono-Regular.otf", "opentype/b612/B612Mono-Bold.otf"),
    ("cabin", "Cabin", ["sans"], "fonts-cabin", "OFL-1.1", "opentype/cabin/Cabin-Regular.otf", "opentype/cabin/Cabin-Bold.otf"),
    ("roboto", "Roboto", ["sans"], "fonts-roboto-unhinted", "Apache-2.0", "truetype/roboto/unhinted/RobotoTTF/Roboto-Regular.ttf", "truetype/roboto/unhinted/RobotoTTF/Roboto-Bold.ttf"),
    ("roboto-condensed", "Roboto Condensed", ["sans", "condensed"], "fonts-roboto-unhinted", "Apache-2.0", "truetype/roboto/unhinted/RobotoCondensed-Regular.ttf", "truetype/roboto/unhinted/RobotoCondensed-Bold.ttf"),
    ("roboto-slab", "Roboto Slab", ["slab"], "fonts-roboto-slab", "Apache-2.0", "opentype/roboto/slab/RobotoSlab-Regular.otf", "opentype/roboto/slab/RobotoSlab-Bold.otf"),
    ("linux-biolinum", "Linux Biolinum", ["sans"], "fonts-linuxlibertine", "GPL-2+-with-font-exception/OFL-1.1", "opentype/linux-libertine/LinBiolinum_R.otf", "opentype/linux-libertine/LinBiolinum_RB.otf"),
    ("linux-libertine", "Linux Libertine", ["serif"], "fonts-linuxlibertine", "GPL-2+-with-font-exception/OFL-1.1", "opentype/linux-libertine/LinLibertine_R.otf", "opentype/linux-libertine/LinLibertine_RB.otf"),
    ("charis-sil", "Charis SIL", ["serif"], "fonts-sil-charis", "OFL-1.1", "truetype/charis/CharisSIL-Regular.ttf", "truetype/charis/CharisSIL-Bold.ttf"),
    ("tex-gyre-termes", "TeX Gyre Termes", ["serif"], "fonts-texgyre", "GUST-Font-License", "@texgyretermes-regular.otf", "@texgyretermes-bold.otf"),
    ("tex-gyre-pagella", "TeX Gyre Pagella", ["serif"], "fonts-texgyre", "GUST-Font-License", "@texgyrepagella-regular.otf", "@texgyrepagella-bold.otf"),
    ("tex-gyre-schola", "TeX Gyre Schola", ["serif"], "fonts-texgyre", "GUST-Font-License", "@texgyreschola-regular.otf", "@texgyreschola-bold.otf"),
    ("tex-gyre-heros", "TeX Gyre Heros", ["sans"], "fonts-texgyre", "GUST-Font-License", "@texgyreheros-regular.otf", "@texgyreheros-bold.otf"),
    ("tex-gyre-heros-cn", "TeX Gyre Heros Condensed", ["sans", "condensed"], "fonts-texgyre", "GUST-Font-License", "@texgyreheroscn-regular.otf", "@texgyreheroscn-bold.otf"),
    ("tex-gyre-adventor", "TeX Gyre Adventor", ["sans"], "fonts-texgyre", "GUST-Font-License", "@texgyreadventor-regular.otf", "@texgyreadventor-bold.otf"),
    ("tex-gyre-cursor", "TeX Gyre Cursor", ["mono", "slab"], "fonts-texgyre", "GUST-Font-License", "@texgyrecursor-regular.otf", "@texgyrecursor-bold.otf"),
    ("courier-prime", "Courier Prime", ["mono", "slab"], "fonts-courier-prime", "OFL-1.1", "opentype/courier-prime/Courier Prime.otf", "opentype/courier-prime/Courier Prime Bold.otf"),
    ("hack", "Hack", ["mono"], "fonts-hack", "MIT/Bitstream-Vera", "truetype/hack/Hack-Regular.ttf", "truetype/hack/Hack-Bold.ttf"),
    ("jetbrains-mono", "JetBrains Mono", ["mono"], "fonts-jetbrains-mono", "OFL-1.1", "truetype/jetbrains-mono/JetBrainsMono-Regular.ttf", "truetype/jetbrains-mono/JetBrainsMono-Bold.ttf"),
    ("fira-code", "Fira Code", ["mono"], "fonts-firacode", "OFL-1.1", "truetype/firacode/FiraCode-Regular.ttf", "truetype/firacode/FiraCode-Bold.ttf"),
    ("inconsolata", "Inconsolata", ["mono"], "fonts-inconsolata", "OFL-1.0", "truetype/inconsolata/Inconsolata.otf", None),
    ("noto-sans-mono", "Noto Sans Mono", ["mono"], "fonts-noto-mono", "OFL-1.1", "truetype/noto/NotoSansMono-Regular.ttf", "truetype/noto/NotoSansMono-Bold.ttf"),
    ("league-mono", "League Mono", ["mono"], "fonts-league-mono", "OFL-1.1", "opentype/league-mono/LeagueMono-Regular.otf", "opentype/league-mono/LeagueMono-Bold.otf"),
    ("fantasque-sans-mono", "Fantasque Sans Mono", ["mono", "handwriting"], "fonts-fantasque-sans", "OFL-1.1", "truetype/fantasque-sans/Normal/TTF/FantasqueSansMono-Regular.ttf", "truetype/fantasque-sans/Normal/TTF/FantasqueSansMono-Bold.ttf"),
    ("yanone-kaffeesatz", "Yanone Kaffeesatz", ["condensed"], "fonts-yanone-kaffeesatz", "OFL-1.1", "opentype/yanone-kaffeesatz/YanoneKaffeesatz-Regular.otf", "opentype/yanone-kaffeesatz/YanoneKaffeesatz-Bold.otf"),
    ("league-spartan", "League Spartan", ["sans"], "fonts-league-spartan", "OFL-1.1", "opentype/league-spartan/LeagueSpartan-Regular.otf", "opentype/league-spartan/LeagueSpartan-Bold.otf"),
    ("comfortaa", "Comfortaa", ["rounded"], "fonts-comfortaa", "OFL-1.1", "truetype/comfortaa/Comfortaa-Regular.ttf", "truetype/comfortaa/Comfortaa-Bold.ttf"),
    ("quicksand", "Quicksand", ["rounded"], "fonts-quicksand", "OFL-1.1", "truetype/quicksand/Quicksand-Regular.ttf", "truetype/quicksand/Quicksand-Bold.ttf"),
    ("dosis", "Dosis", ["rounded", "condensed"], "fonts-dosis", "OFL-1.1", "opentype/dosis/Dosis-Book.otf", "opentype/dosis/Dosis-Bold.otf"),
    ("eurofurence", "Eurofurence", ["rounded"], "fonts-eurofurence", "OFL-1.1", "truetype/eurofurence/eurof55.ttf", "truetype/eurofurence/eurof75.ttf"),
    ("comic-neue", "Comic Neue", ["handwriting"], "fonts-comic-neue", "OFL-1.1", "opentype/comic-neue/ComicNeue-Regular.otf", "opentype/comic-neue/ComicNeue-Bold.otf"),
    ("humor-sans", "Humor Sans", ["handwriting"], "fonts-humor-sans", "OFL-1.1", "truetype/humor-sans/Humor-Sans.ttf", None),
    ("breip", "Breip", ["handwriting"], "fonts-breip", "OFL-1.0", "truetype/breip/Breip.ttf", None),
    ("dancing-script", "Dancing Script", ["handwriting"], "fonts-dancingscript", "OFL-1.1", "opentype/dancingscript/DancingScript-Regular.otf", "opentype/dancingscript/DancingScript-Bold.otf"),
    ("kristi", "Kristi", ["handwriting"], "fonts-kristi", "OFL-1.1", "truetype/kristi/Kristi.ttf", None),
]

COMMON = Path("/usr/share/common-licenses")


def licence_text(root: Path, package: str) -> str:
    text = (root / "usr/share/doc" / package / "copyright").read_text(encoding="utf-8")
    for name in ("Apache-2.0", "GPL-2", "GPL-3"):
        if f"common-licenses/{name}" in text and (COMMON / name).exists():
            text += f"\n\n----- {COMMON / name} -----\n\n" + (COMMON / name).read_text(encoding="utf-8")
    return text


def main(root: Path) -> None:
    import yaml

    sys.path.insert(0, str(HERE.parents[2]))
    from tessera.render.typefaces import measure_coverage

    entries: list[dict[str, Any]] = []
    for slug, family, classes, package, licence, regular, bold in TABLE:
        entry = {"family": family, "classes": classes, "licence": licence, "package": package}
        if slug == "dejavu-sans":  # the default face: its files stay where they always were, beside LICENSE-DejaVu
            entries.append({**entry, "files": {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}})
            continue
        folder = HERE / slug
        folder.mkdir(exist_ok=True)
        files = {}
        for style, rel in (("regular", regular), ("bold", bold)):
            if rel is None:
                continue
            src = root / TEXMF / rel[1:] if rel.startswith("@") else root / FONTS / rel
            name = src.name.replace(" ", "")
            shutil.copyfile(src, folder / name)
            files[style] = f"{slug}/{name}"
        (folder / "LICENSE").write_text(licence_text(root, package), encoding="utf-8")
        entries.append({**entry, "files": files})
    for e in entries:
        e["covers"] = measure_coverage(HERE / e["files"]["regular"])
    (HERE / "fonts.yaml").write_text(
        "# The vendored font pool (see vendor.py). `covers` names the glyph classes of typefaces.GLYPH_CLASSES the\n"
        "# regular face has every character of; tests/test_variety_fonts.py measures it again.\n"
        + yaml.safe_dump({"families": entries}, sort_keys=False, allow_unicode=True, width=200), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
