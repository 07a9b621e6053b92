"""Writes the seeds of the xlsx fuzz target (cpp/fuzz/corpus/xlsx): small workbooks as openpyxl
(msprobe 1.2.1's writer) and our writer (msprobe._core) save them, the same parts stored instead
of deflated (the target re-packs its input, so stored XML is what the fuzzer mutates best), and
one hand-written workbook with what spreadsheet programs write (shared rich text with phonetic
runs, inline strings, formulas with cached values, booleans, errors, entities, _xHHHH_ escapes,
CDATA, cells and rows without references, two sheets).
    python3 cpp/fuzz/make_xlsx_seeds.py   # needs openpyxl and an installed msprobe
"""
import io
import os
import zipfile

import openpyxl
from openpyxl.styles import PatternFill

from msprobe import _core

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "xlsx")
HEADER = ["NPU Name", "Bench Name", "NPU Dtype", "NPU Tensor Shape", "Max diff", "NPU max",
          "Result", "Accuracy Reached or Not"]
ROWS = [
    ["Functional.linear.0.forward.input.0", "Functional.linear.0.forward.input.0", "torch.float32",
     "[2, 4]", 0.0, 1.5, "pass", "Yes"],
    ["Torch.add.1.forward.output.0", "Torch.add.1.forward.output.0", "torch.bfloat16", "[3]",
     "nan\t", "inf\t", "None", "No"],
    ["Tensor.mul.0.backward.input.1", "N/A", "torch.int64", "[]", 12, -7.25e-05, True, ""],
]
# The parts our reader looks at; the stored copies keep only these.
READ_PARTS = ("[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/_rels/workbook.xml.rels",
              "xl/sharedStrings.xml")


def restored(data, keep_all=False):
    """The workbook's parts, stored (not deflated); only those read unless keep_all."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            if keep_all or info.filename in READ_PARTS or info.filename.startswith("xl/worksheets/"):
                dst.writestr(info.filename, src.read(info.filename))
    return out.getvalue()


def openpyxl_book():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(HEADER)
    for row in ROWS:
        ws.append([None if v == "" else v for v in row])
    red = PatternFill(start_color="FF0000", end_color="FF0000", fill_type="solid")
    for cell in ws[3]:
        cell.fill = red
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def our_book(tmp):
    _core.write_compare_xlsx_rows(HEADER, ROWS, ["", "red", "yellow"], tmp)
    with open(tmp, "rb") as f:
        data = f.read()
    os.remove(tmp)
    return data


RICH_WORKBOOK = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"
 xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>
<sheet name="Sheet &amp; 1" sheetId="1" r:id="rId1"/><sheet name="Second" sheetId="2" r:id="rId2"/>
</sheets></workbook>"""
RICH_RELS = """<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
 Target="/xl/worksheets/other.xml"/>
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
 Target="worksheets/sheet1.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"
 Target="strings.xml"/>
</Relationships>"""
RICH_STRINGS = """<?xml version="1.0" encoding="UTF-8"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="4" uniqueCount="4">
<si><t>NPU Name</t></si>
<si><r><rPr><b/></rPr><t xml:space="preserve">Max </t></r><r><t>diff</t></r><rPh sb="0" eb="1"><t>X</t></rPh></si>
<si><t>a&lt;b&gt;&amp;&quot;&apos;&#233;&#x4E2D;_x000D_<![CDATA[&raw<]]></t></si>
<si/>
</sst>"""
RICH_SHEET1 = """<?xml version="1.0" encoding="UTF-8"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>
<!-- a comment <c r="Z9"><v>9</v></c> -->
<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c t="s"><v>2</v></c></row>
<row r="3" spans="1:6"><c r="A3" t="inlineStr"><is><t>Torch.add.0.forward</t></is></c>
<c r="B3"><f>1+1</f><v>2</v></c><c r="C3" t="b"><v>1</v></c><c r="D3" t="e"><v>#DIV/0!</v></c>
<c r="E3" t="str"><f>"x"&amp;"y"</f><v>xy</v></c><c r="F3" s="1"/><c r="AA3"><v>-1.5E-3</v></c></row>
<row><c><v>7</v></c><c t="s"><v>3</v></c><c t="n"><v>nan</v></c></row>
<row r="6"/>
</sheetData></worksheet>"""
RICH_SHEET2 = """<?xml version="1.0" encoding="UTF-8"?>
<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>
<x:row r="2"><x:c r="B2" t="inlineStr"><x:is><x:r><x:t>two </x:t></x:r><x:r><x:t>runs</x:t></x:r></x:is></x:c></x:row>
</x:sheetData></x:worksheet>"""


def rich_book():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/content-types"/>')
        z.writestr("xl/workbook.xml", RICH_WORKBOOK)
        z.writestr("xl/_rels/workbook.xml.rels", RICH_RELS)
        z.writestr("xl/strings.xml", RICH_STRINGS)
        z.writestr("xl/worksheets/sheet1.xml", RICH_SHEET1)
        z.writestr("xl/worksheets/other.xml", RICH_SHEET2)
    return out.getvalue()


def main():
    os.makedirs(OUT, exist_ok=True)
    ours = our_book(os.path.join(OUT, "tmp_ours.xlsx"))
    pyxl = openpyxl_book()
    seeds = {
        "openpyxl.xlsx": pyxl,
        "openpyxl_stored.xlsx": restored(pyxl),
        "ours.xlsx": ours,
        "ours_stored.xlsx": restored(ours),
        "rich_stored.xlsx": rich_book(),
    }
    for name, data in seeds.items():
        assert len(data) <= 65536, (name, len(data))  # scripts/fuzz.sh: -max_len=65536
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        print(name, len(data))


if __name__ == "__main__":
    main()
