"""Map regions as records: `map_regions(set, continent)` lists the vendored regions of a set (spec/geo.py), the
records a `map_region` mark draws by id and a program asks about (largest, most northern, of a continent)."""
from __future__ import annotations

from ..errors import EvalError
from ..spec.geo import region_set
from .builtins import _charge, builtin
from .compile import Compiled
from .types import FLOAT, STR, ListT, record

REGION = record(id=STR, name=STR, continent=STR, lon=FLOAT, lat=FLOAT, area=FLOAT)


def map_regions(set_name: str, continent: str) -> list[dict]:
    records = region_set(set_name).records
    if continent == "":
        return [dict(r) for r in records]
    out = [dict(r) for r in records if r["continent"] == continent]
    if not out:
        known = sorted({r["continent"] for r in records})
        raise EvalError(f"map_regions('{set_name}', '{continent}'): no region of that continent "
                        f"(known: {', '.join(known)}; '' for all)")
    return out


@builtin("map_regions", "map_regions(set, continent)", 2,
         doc="the regions of a vendored map set ('countries': Natural Earth 1:110m, 177; 'us-states': 56) as "
             "records {id, name, continent, lon, lat, area} sorted by id, those of one continent ('Europe', "
             "'Africa', ...) or all for ''; lon/lat is the centroid of its largest part, area in km²")
def _map_regions(ck, node, args):
    s = ck.expect(args[0], STR, "the set of map_regions()")
    c = ck.expect(args[1], STR, "the continent of map_regions()")
    sf, cf = s.fn, c.fn

    def impl(env):
        out = map_regions(sf(env), cf(env))
        _charge(env, len(out) + 1)
        return out

    return Compiled(ListT(REGION), impl)
