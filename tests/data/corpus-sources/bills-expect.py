# expect.py DIR formats.txt > expected.csv: the expected rows, totals and currencies of each export, summed with Python's csv and decimal modules (independently of gpurent); formats.txt names each file's format ("file|format").
import csv, sys, os, io
from decimal import Decimal, getcontext
getcontext().prec = 200
from collections import OrderedDict
D = sys.argv[1]
COST = ["BilledCost","lineItem/UnblendedCost","line_item_unblended_cost","cost","CostInBillingCurrency","costInBillingCurrency","PreTaxCost","preTaxCost","PreTaxCost (PreTaxCost)","costinbillingcurrency","Cost","cost/myCost"]
CUR = ["BillingCurrency","lineItem/CurrencyCode","line_item_currency_code","currency","BillingCurrencyCode","billingCurrencyCode","billingCurrency","Currency","cost/currencyCode"]
fmt = {}
for line in open(sys.argv[2]):
    f, v = line.rstrip("\n").split("|"); fmt[f] = v
out = csv.writer(sys.stdout, lineterminator="\n")
print("# computed by python3 csv.DictReader (decimal context precision 200, so sums are exact) over each file decoded as utf-8-sig (BOM stripped), newline=''; data_rows = records after the header (csv skips wholly empty lines); cost column = first present of " + " / ".join(COST) + "; currency column = first present of " + " / ".join(CUR) + "; total = sum of decimal.Decimal(cell.strip()) per currency, empty cells as 0; files with no rows get one row with empty currency and total 0")
out.writerow(["file","format","data_rows","cost_column","currency_column","currency","total","notes"])
for f in sorted(os.listdir(D)):
    if not f.endswith(".csv") or f == "expected.csv": continue
    raw = open(os.path.join(D,f),"rb").read()
    notes = []
    if raw.startswith(b"\xef\xbb\xbf"): notes.append("UTF-8 BOM")
    if b"\r\n" in raw: notes.append("CRLF")
    if not raw.endswith(b"\n"): notes.append("no final newline")
    text = raw.decode("utf-8-sig")
    if any(ord(c) > 127 for c in text.split("\n",1)[0]): notes.append("non-ASCII header")
    r = csv.DictReader(io.StringIO(text, newline=""))
    hdr = r.fieldnames
    cc = next((c for c in COST if c in hdr), None)
    uc = next((c for c in CUR if c in hdr), None)
    assert cc, (f, hdr)
    if cc[0].islower() and cc[1:] != cc[1:].lower() and "/" not in cc and "_" not in cc: notes.append("camelCase header")
    if "(" in cc or any("(" in h for h in hdr): notes.append("localised header (German names with English in brackets)")
    if uc is None: notes.append("no currency column")
    sums = OrderedDict(); n = 0; fmtd = [False]
    for row in r:
        n += 1
        cur = (row.get(uc) or "").strip() if uc else ""
        v = (row.get(cc) or "").strip()
        s = sums.setdefault(cur, [0, Decimal(0)])
        s[0] += 1
        try:
            d = Decimal(v) if v else Decimal(0)
        except Exception:
            w = v.replace("$", "").replace(",", "").replace(" ", "")
            neg = w.startswith("(") and w.endswith(")")
            d = Decimal(w.strip("()")); d = -d if neg else d
            fmtd[0] = True
        s[1] += d
    if fmtd[0]: notes.append("cost cells spreadsheet-formatted (e.g. \"$10,000.00 \"); not plain decimals; total after dropping $ and thousands commas and spaces")
    if not sums:
        notes.append("header only, no data rows"); sums[""] = [0, Decimal(0)]
    for cur, (k, t) in sums.items():
        out.writerow([f, fmt[f], k, cc, uc or "", cur, str(t), "; ".join(notes)])
