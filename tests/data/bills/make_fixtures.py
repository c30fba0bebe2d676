#!/usr/bin/env python3
"""make_fixtures.py - writes the synthetic billing exports of tests/data/bills/
from the documented column names (docs/bill.md): no line of anyone's real
bill. Run it from this directory; the outputs are committed.

Each format gets three files:
  *-stories.csv  seed 000 §5.2's three stories:
                 1. an hourly-billed GPU box started 8 times for 15 minutes,
                    each billed a full hour at 4.00/h: 32.00 billed, 8.00 used,
                    rounding waste 24.00 (8 sessions);
                 2. its data disk billed 1.00 a day while it ran (3 days) and
                    for 15 days after the last session: 15.00 outlived;
                 3. egress of 50.00, above the 32.00 of GPU time: 18.00 above.
  *-stopped.csv  seed 004 §5.1: 2 GPU hours billed as used (2 x 4.00), then
                 10 days of a public IP (0.50 a day) and a disk (1.00 a day)
                 with no GPU: 15.00 stopped-not-released.
  *-clean.csv    per-second GPU lines (billed = used), a disk only while the
                 box runs, egress below GPU: no finding.

Azure's cost details have one row per day, so its GPU sessions are one row
a day of billed hours: tests/cli/bill.sh records the sessions as ledger runs
to find the rounding there.
"""
import csv

DAY = 86400
T0 = 1709251200  # 2024-03-01T00:00:00Z


def iso(t, sep="T", z="Z"):
    import datetime
    d = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
    return d.strftime("%Y-%m-%d" + sep + "%H:%M:%S") + z


# neutral lines: (start, end, kind, item, resource, quantity, unit, amount)
def stories():
    L = []
    for i in range(8):  # sessions on days 0..2, 15 min each, billed 1 h
        s = T0 + (i // 3) * DAY + 9 * 3600 + (i % 3) * 3 * 3600
        L.append((s, s + 900, "gpu", "gpu-hour", "box-1", 1, "hour", 4.00))
    for d in range(3):
        L.append((T0 + d * DAY, T0 + (d + 1) * DAY, "storage", "disk", "disk-1", 100, "GB-day", 1.00))
    for d in range(3, 18):
        L.append((T0 + d * DAY, T0 + (d + 1) * DAY, "storage", "disk", "disk-1", 100, "GB-day", 1.00))
    for d in range(2):
        L.append((T0 + d * DAY, T0 + (d + 1) * DAY, "egress", "egress", "box-1", 250, "GB", 25.00))
    return L


def stopped():
    L = []
    s = T0 + 9 * 3600
    L.append((s, s + 7200, "gpu", "gpu-hour", "box-2", 2, "hour", 8.00))
    L.append((T0, T0 + DAY, "storage", "disk", "disk-2", 100, "GB-day", 1.00))
    L.append((T0, T0 + DAY, "ip", "public ip", "ip-2", 24, "hour", 0.50))
    for d in range(1, 11):
        L.append((T0 + d * DAY, T0 + (d + 1) * DAY, "storage", "disk", "disk-2", 100, "GB-day", 1.00))
        L.append((T0 + d * DAY, T0 + (d + 1) * DAY, "ip", "public ip", "ip-2", 24, "hour", 0.50))
    return L


def clean():
    L = []
    for d in range(3):
        s = T0 + d * DAY + 8 * 3600
        L.append((s, s + 5400, "gpu", "gpu-second", "box-3", 5400, "seconds", 6.00))
    # the disk is billed for the hours the box exists (08:00-09:30 each day)
    for d in range(3):
        s = T0 + d * DAY + 8 * 3600
        L.append((s, s + 5400, "storage", "disk", "disk-3", 150, "GB-hour", 0.30))
    L.append((T0, T0 + DAY, "egress", "egress", "box-3", 20, "GB", 2.00))
    return L


# per format: the line's product/usage text for a kind (bill_kinds.csv matches it)
AWS = {"gpu": ("AmazonEC2", "USE1-BoxUsage:g5.xlarge", "Hrs"),
       "storage": ("AmazonEC2", "USE1-EBS:VolumeUsage.gp3", "GB-Mo"),
       "egress": ("AmazonEC2", "USE1-DataTransfer-Out-Bytes", "GB"),
       "ip": ("AmazonVPC", "USE1-PublicIPv4:IdleAddress", "Hrs")}
AWS_IDS = {"box-1": "i-0a1b2c3d4e5f60001", "disk-1": "vol-0a1b2c3d4e5f60001",
           "box-2": "i-0a1b2c3d4e5f60002", "disk-2": "vol-0a1b2c3d4e5f60002",
           "ip-2": "eipalloc-0a1b2c3d4e5f60002",
           "box-3": "i-0a1b2c3d4e5f60003", "disk-3": "vol-0a1b2c3d4e5f60003"}
GCP = {"gpu": ("Compute Engine", "Nvidia L4 GPU running in Americas"),
       "storage": ("Compute Engine", "Balanced PD Capacity"),
       "egress": ("Compute Engine", "Network Internet Egress from Americas to Americas"),
       "ip": ("Compute Engine", "External IP Charge on a Standard VM")}
AZ = {"gpu": ("Virtual Machines", "NCasT4 v3 Series", "NC4as T4 v3"),
      "storage": ("Storage", "Premium SSD Managed Disks", "P10 LRS Disk"),
      "egress": ("Bandwidth", "Rtn Preference: MGN", "Standard Data Transfer Out"),
      "ip": ("Virtual Network", "IP Addresses", "Standard IPv4 Static Public IP")}
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/"
AZ_IDS = {"box-1": SUB + "Microsoft.Compute/virtualMachines/box-1",
          "disk-1": SUB + "Microsoft.Compute/disks/disk-1",
          "box-2": SUB + "Microsoft.Compute/virtualMachines/box-2",
          "disk-2": SUB + "Microsoft.Compute/disks/disk-2",
          "ip-2": SUB + "Microsoft.Network/publicIPAddresses/ip-2",
          "box-3": SUB + "Microsoft.Compute/virtualMachines/box-3",
          "disk-3": SUB + "Microsoft.Compute/disks/disk-3"}


def unit_hours(unit, q, s, e):
    return q


def write(name, header, rows):
    with open(name, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def aws_rows(L, cur2):
    rows = []
    for n, (s, e, k, item, res, q, unit, amt) in enumerate(L):
        prod, ut, u = AWS[k]
        if k == "gpu" and unit == "seconds":
            q, u = q / 3600, "Hrs"
        rows.append([f"line-{n + 1}", iso(s), iso(e), prod, ut, AWS_IDS[res], f"{q:g}", u,
                     f"{amt:.2f}", "USD"])
    return rows


def main():
    for tag, L in (("stories", stories()), ("stopped", stopped()), ("clean", clean())):
        write(f"aws-cur2-{tag}.csv",
              ["identity_line_item_id", "line_item_usage_start_date", "line_item_usage_end_date",
               "line_item_product_code", "line_item_usage_type", "line_item_resource_id",
               "line_item_usage_amount", "pricing_unit", "line_item_unblended_cost",
               "line_item_currency_code"], aws_rows(L, True))
        write(f"aws-cur-{tag}.csv",
              ["identity/LineItemId", "lineItem/UsageStartDate", "lineItem/UsageEndDate",
               "lineItem/ProductCode", "lineItem/UsageType", "lineItem/ResourceId",
               "lineItem/UsageAmount", "pricing/unit", "lineItem/UnblendedCost",
               "lineItem/CurrencyCode"], aws_rows(L, False))
        rows = []
        for (s, e, k, item, res, q, unit, amt) in L:
            svc, sku = GCP[k]
            rows.append([svc, sku, iso(s, " ", " UTC"), iso(e, " ", " UTC"), f"{amt:.2f}", "USD",
                         f"{q:g}", unit, "projects/demo/" + res])
        write(f"gcp-{tag}.csv", ["service.description", "sku.description", "usage_start_time",
                                 "usage_end_time", "cost", "currency", "usage.amount", "usage.unit",
                                 "resource.name"], rows)
        rows = []
        # Azure rows are daily: GPU sessions of a day are one row of their
        # billed hours (the rounding is then found against the ledger's runs)
        gpu_days = {}
        for (s, e, k, item, res, q, unit, amt) in L:
            if k == "gpu":
                day = T0 + (s - T0) // DAY * DAY
                h = q / 3600 if unit == "seconds" else q
                g = gpu_days.setdefault(day, [0, 0.0, res])
                g[0] += h
                g[1] += amt
        for day, (h, amt, res) in sorted(gpu_days.items()):
            cat, sub, meter = AZ["gpu"]
            rows.append([iso(day)[:10], cat, sub, meter, AZ_IDS[res], f"{h:g}", "1 Hour",
                         f"{amt:.2f}", "USD"])
        for (s, e, k, item, res, q, unit, amt) in L:
            cat, sub, meter = AZ[k]
            if k == "gpu":
                continue
            if e - s != DAY:  # the clean disk's hours: one row a day
                e = s - (s - T0) % DAY + DAY
                s = e - DAY
            rows.append([iso(s, "T", "")[:10], cat, sub, meter, AZ_IDS[res], f"{q:g}",
                         "1 Hour" if unit == "hour" else "1 GB/Month" if k == "storage" else "1 GB",
                         f"{amt:.2f}", "USD"])
        write(f"azure-{tag}.csv", ["Date", "MeterCategory", "MeterSubCategory", "MeterName",
                                   "ResourceId", "Quantity", "UnitOfMeasure",
                                   "CostInBillingCurrency", "BillingCurrency"], rows)
        rows = []
        for (s, e, k, item, res, q, unit, amt) in L:
            rows.append([iso(s), iso(e), item, res, k, f"{q:g}", unit, f"{amt:.2f}", "USD"])
        write(f"neutral-{tag}.csv", ["time", "end", "item", "resource", "kind", "quantity", "unit",
                                     "amount", "currency"], rows)


main()
