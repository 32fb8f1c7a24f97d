"""TPC-H queries 1, 3, 5, 6, 10, 12, 14 and 19 in polars' lazy API, written
once from the TPC-H specification's SQL and run over any scan: `scan(name)`
returns a LazyFrame of table `name` (pl.scan_parquet or
pqstep.polars.scan_parquet over tpchgen-cli's files). Substitution
parameters are the specification's validation values. Used by
bench/polars_tpch.py and tests/py/test_polars_tpch.py.
"""
from datetime import date
from decimal import Decimal

import polars as pl

col = pl.col


def _revenue():
    return col("l_extendedprice") * (1 - col("l_discount"))


def q1(scan):
    li = scan("lineitem")
    return (li.filter(col("l_shipdate") <= date(1998, 9, 2))
            .group_by("l_returnflag", "l_linestatus")
            .agg(col("l_quantity").sum().alias("sum_qty"),
                 col("l_extendedprice").sum().alias("sum_base_price"),
                 _revenue().sum().alias("sum_disc_price"),
                 (_revenue() * (1 + col("l_tax"))).sum().alias("sum_charge"),
                 col("l_quantity").cast(pl.Float64).mean().alias("avg_qty"),
                 col("l_extendedprice").cast(pl.Float64).mean().alias("avg_price"),
                 col("l_discount").cast(pl.Float64).mean().alias("avg_disc"),
                 pl.len().alias("count_order"))
            .sort("l_returnflag", "l_linestatus"))


def q3(scan):
    c = scan("customer").filter(col("c_mktsegment") == "BUILDING")
    o = scan("orders").filter(col("o_orderdate") < date(1995, 3, 15))
    li = scan("lineitem").filter(col("l_shipdate") > date(1995, 3, 15))
    return (c.join(o, left_on="c_custkey", right_on="o_custkey")
            .join(li, left_on="o_orderkey", right_on="l_orderkey")
            .group_by("o_orderkey", "o_orderdate", "o_shippriority")
            .agg(_revenue().sum().alias("revenue"))
            .select("o_orderkey", "revenue", "o_orderdate", "o_shippriority")
            .sort(["revenue", "o_orderdate", "o_orderkey"], descending=[True, False, False])
            .head(10))


def q5(scan):
    r = scan("region").filter(col("r_name") == "ASIA")
    n = scan("nation")
    c = scan("customer")
    o = scan("orders").filter((col("o_orderdate") >= date(1994, 1, 1)) & (col("o_orderdate") < date(1995, 1, 1)))
    li = scan("lineitem")
    s = scan("supplier")
    return (r.join(n, left_on="r_regionkey", right_on="n_regionkey")
            .join(c, left_on="n_nationkey", right_on="c_nationkey")
            .join(o, left_on="c_custkey", right_on="o_custkey")
            .join(li, left_on="o_orderkey", right_on="l_orderkey")
            .join(s, left_on=["l_suppkey", "n_nationkey"], right_on=["s_suppkey", "s_nationkey"])
            .group_by("n_name")
            .agg(_revenue().sum().alias("revenue"))
            .sort("revenue", descending=True))


def q6(scan):
    return (scan("lineitem")
            .filter((col("l_shipdate") >= date(1994, 1, 1)) & (col("l_shipdate") < date(1995, 1, 1))
                    & col("l_discount").is_between(Decimal("0.05"), Decimal("0.07"))
                    & (col("l_quantity") < 24))
            .select((col("l_extendedprice") * col("l_discount")).sum().alias("revenue")))


def q10(scan):
    c = scan("customer")
    o = scan("orders").filter((col("o_orderdate") >= date(1993, 10, 1)) & (col("o_orderdate") < date(1994, 1, 1)))
    li = scan("lineitem").filter(col("l_returnflag") == "R")
    n = scan("nation")
    return (c.join(o, left_on="c_custkey", right_on="o_custkey")
            .join(li, left_on="o_orderkey", right_on="l_orderkey")
            .join(n, left_on="c_nationkey", right_on="n_nationkey")
            .group_by("c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address", "c_comment")
            .agg(_revenue().sum().alias("revenue"))
            .select("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone", "c_comment")
            .sort(["revenue", "c_custkey"], descending=[True, False])
            .head(20))


def q12(scan):
    o = scan("orders")
    li = scan("lineitem").filter(col("l_shipmode").is_in(["MAIL", "SHIP"])
                                 & (col("l_commitdate") < col("l_receiptdate"))
                                 & (col("l_shipdate") < col("l_commitdate"))
                                 & (col("l_receiptdate") >= date(1994, 1, 1))
                                 & (col("l_receiptdate") < date(1995, 1, 1)))
    high = col("o_orderpriority").is_in(["1-URGENT", "2-HIGH"])
    return (o.join(li, left_on="o_orderkey", right_on="l_orderkey")
            .group_by("l_shipmode")
            .agg(high.sum().alias("high_line_count"), (~high).sum().alias("low_line_count"))
            .sort("l_shipmode"))


def q14(scan):
    li = scan("lineitem").filter((col("l_shipdate") >= date(1995, 9, 1)) & (col("l_shipdate") < date(1995, 10, 1)))
    p = scan("part")
    promo = pl.when(col("p_type").str.starts_with("PROMO")).then(_revenue()).otherwise(0)
    return (li.join(p, left_on="l_partkey", right_on="p_partkey")
            .select((100 * promo.sum().cast(pl.Float64) / _revenue().sum().cast(pl.Float64))
                    .alias("promo_revenue")))


def q19(scan):
    li = scan("lineitem").filter(col("l_shipmode").is_in(["AIR", "AIR REG"])
                                 & (col("l_shipinstruct") == "DELIVER IN PERSON"))
    p = scan("part")

    def branch(brand, containers, lo, hi, size):
        return ((col("p_brand") == brand) & col("p_container").is_in(containers)
                & col("l_quantity").is_between(lo, hi) & col("p_size").is_between(1, size))
    cond = (branch("Brand#12", ["SM CASE", "SM BOX", "SM PACK", "SM PKG"], 1, 11, 5)
            | branch("Brand#23", ["MED BAG", "MED BOX", "MED PKG", "MED PACK"], 10, 20, 10)
            | branch("Brand#34", ["LG CASE", "LG BOX", "LG PACK", "LG PKG"], 20, 30, 15))
    return (li.join(p, left_on="l_partkey", right_on="p_partkey")
            .filter(cond)
            .select(_revenue().sum().alias("revenue")))


QUERIES = {1: q1, 3: q3, 5: q5, 6: q6, 10: q10, 12: q12, 14: q14, 19: q19}
TABLES = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")
