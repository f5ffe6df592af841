# ruff: noqa: E501  (long literal commands and log lines read best unbroken)
"""Write the test transcripts: long agent conversations of biology analyses.

Run ``python tests/data/transcripts/generate.py`` to rewrite the files next to this script;
``tests/test_compress_transcripts.py`` checks the committed files are what this script writes.
Everything is deterministic (seeded ``random.Random``), so the files never change by accident.

Each scenario is written once, as turns (user text, assistant text, tool call with its result),
and rendered in the format the scenario names: OpenAI chat messages (``tool_calls`` + ``tool``
messages) or Anthropic messages (``tool_use`` / ``tool_result`` blocks), as a JSON array, an
object with ``"messages"`` (and a top-level ``"system"`` for Anthropic), or JSON Lines.
``expected.json`` lists, per file, what must survive compression: identifiers, error messages
and decisions that occur early in the conversation.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@dataclass
class Turn:
    kind: str  # "user", "say", "call"
    text: str = ""
    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    result: str = ""
    error: bool = False


@dataclass
class Script:
    name: str
    style: str  # "openai" or "anthropic"
    container: str  # "array", "array-compact", "object", "jsonl"
    system: str
    seed: int
    must_survive: dict[str, list[str]] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    model: str = ""

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def user(self, text: str) -> None:
        self.turns.append(Turn("user", text.strip()))

    def say(self, text: str) -> None:
        self.turns.append(Turn("say", text.strip()))

    def call(self, tool: str, args: dict[str, Any], result: str, text: str = "", error: bool = False) -> None:
        self.turns.append(Turn("call", text.strip(), tool, args, result.rstrip("\n"), error))

    # -- rendering --------------------------------------------------------------------------

    def messages(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.style == "openai":
            out.append({"role": "system", "content": self.system})
        for n, turn in enumerate(self.turns, 1):
            if turn.kind == "user":
                out.append({"role": "user", "content": turn.text})
            elif turn.kind == "say":
                if self.style == "anthropic" and n % 3 == 0:
                    out.append({"role": "assistant", "content": [{"type": "text", "text": turn.text}]})
                else:
                    out.append({"role": "assistant", "content": turn.text})
            elif self.style == "openai":
                call_id = f"call_{self.seed:02d}{n:03d}"
                out.append({"role": "assistant", "content": turn.text or None,
                            "tool_calls": [{"id": call_id, "type": "function",
                                            "function": {"name": turn.tool, "arguments": json.dumps(turn.args)}}]})
                out.append({"role": "tool", "tool_call_id": call_id, "content": turn.result})
            else:
                call_id = f"toolu_{self.seed:02d}{n:03d}"
                blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
                blocks.append({"type": "tool_use", "id": call_id, "name": turn.tool, "input": turn.args})
                out.append({"role": "assistant", "content": blocks})
                result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": turn.result}
                if turn.error:
                    result["is_error"] = True
                out.append({"role": "user", "content": [result]})
        return out

    def render(self) -> str:
        messages = self.messages()
        if self.container == "jsonl":
            return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
        if self.container == "array-compact":
            return json.dumps(messages, ensure_ascii=False) + "\n"
        if self.container == "array":
            return json.dumps(messages, ensure_ascii=False, indent=2) + "\n"
        wrapper: dict[str, Any] = {"model": self.model or ("claude-sonnet-4-5" if self.style == "anthropic"
                                                            else "gpt-4o")}
        if self.style == "anthropic":
            wrapper["max_tokens"] = 8192
            wrapper["system"] = self.system
        wrapper["messages"] = messages
        return json.dumps(wrapper, ensure_ascii=False, indent=2) + "\n"

    def filename(self) -> str:
        ext = "jsonl" if self.container == "jsonl" else "json"
        return f"{self.name}.{ext}"


def table(header: list[str], rows: list[list[Any]], sep: str = "\t") -> str:
    return "\n".join(sep.join(str(c) for c in row) for row in [header, *rows])


#: real gene symbols for the long tail of result tables
FILLER_GENES = """ACTB GAPDH EEF1A1 RPL13A RPS18 TPT1 MALAT1 NEAT1 FTL FTH1 B2M TMSB4X VIM CD74 HLA-A HLA-B HLA-C
    PTPRC CXCR4 JUN FOS DUSP1 KLF2 KLF6 ZFP36 IER2 NR4A1 EGR1 ATF3 HSPA1A HSPA1B DNAJB1 UBC UBB SRSF5 HNRNPA1
    PABPC1 EIF4A1 NPM1 NCL SET PPIA CFL1 PFN1 ARPC2 ACTG1 MYL6 S100A4 S100A6 S100A10 S100A11 LGALS1 ANXA1 ANXA2
    CALM2 CALR CANX HSP90AA1 HSP90AB1 HSPD1 PRDX1 TXN SOD1 GPX1 GSTP1 ENO1 PGK1 LDHA ALDOA TPI1 PKM MIF CD63 CD81
    CD9 ITGB2 ITM2B LAPTM5 CORO1A RAC2 ARHGDIB SH3BGRL3 TMSB10 COTL1 SRGN LCP1 CYBA FCER1G TYROBP SAT1 PSAP CTSB
    CTSD CTSZ LGMN GRN APOE APOC1 C1QA C1QB C1QC SPP1 MMP9 CHI3L1 CXCL2 CXCL3 CCL2 CCL3 CCL3L1 EREG AREG THBS1
    VEGFA HIF1A BNIP3 NDRG1 SLC2A1 CA9 MKI67 TOP2A CDK1 CCNB1 BIRC5 TYMS PCNA MCM2 MCM7 H2AZ1 HMGB2 TUBA1B STMN1
    CENPF SMC4 TPX2 AURKA PLK1 BUB1 KIF11 NUSAP1 PRC1 ZWINT RRM2 CDC20 UBE2C PTTG1 CKS2 CDKN3 GTSE1""".split()


GO_WORDS = ["cellular", "metabolic", "lipid", "protein", "RNA", "transport", "signaling", "immune", "stress",
            "chemotaxis", "adhesion", "secretion", "apoptotic", "kinase", "catabolic", "biosynthetic"]
HOMER = ["CTCF(Zf)", "BORIS(Zf)", "RUNX1(Runt)", "ETS1(ETS)", "PU.1(ETS)", "ELF1(ETS)", "CEBP(bZIP)",
         "JunB(bZIP)", "Atf3(bZIP)", "NFY(CCAAT)", "Sp1(Zf)", "KLF4(Zf)", "TEAD1(TEAD)", "REST-NRSF(Zf)",
         "GATA3(Zf)", "Tbet(T-box)", "EBF1(EBF)", "STAT3(Stat)", "p53(p53)", "YY1(Zf)"]
CELLS = ["GM12878", "K562", "HepG2", "Jurkat", "MCF7", "A549", "CD4+", "Bcell", "ThioMac", "mES"]
GENERA = ["Bacteroides", "Alistipes", "Blautia", "Dorea", "Coprococcus", "Streptococcus", "Prevotella",
          "Parabacteroides", "Ruminococcus", "Clostridium", "Lachnospira", "Veillonella", "Collinsella"]
EPITHETS = ["uniformis", "putredinis", "obeum", "longicatena", "comes", "salivarius", "copri", "distasonis",
            "bromii", "bolteae", "pectinoschiza", "parvula", "aerofaciens", "ovatus", "vulgatus", "finegoldii"]


def barcode(rng: random.Random) -> str:
    return "".join(rng.choice("ACGT") for _ in range(16)) + "-1"


# =============================================================================================
# 1. scRNA-seq QC, doublets and clustering (OpenAI, JSON array)
# =============================================================================================

PBMC_MARKERS = {
    "CD4 T naive": ["IL7R", "CCR7", "LEF1", "TCF7", "SELL", "MAL", "LDHB", "NOSIP", "CD3E", "CD3D"],
    "CD8 T effector": ["CD8A", "CD8B", "GZMK", "CCL5", "NKG7", "GZMH", "CST7", "CD3D", "KLRG1", "DUSP2"],
    "NK": ["GNLY", "NKG7", "KLRD1", "PRF1", "GZMB", "FGFBP2", "SPON2", "KLRF1", "CTSW", "CD247"],
    "B naive": ["MS4A1", "CD79A", "CD79B", "IGHD", "TCL1A", "BANK1", "CD22", "FCER2", "IGHM", "VPREB3"],
    "Plasmablast": ["MZB1", "JCHAIN", "IGHG1", "XBP1", "TNFRSF17", "PRDM1", "IGKC", "TXNDC5", "DERL3", "CD38"],
    "CD14 Mono": ["LYZ", "CD14", "S100A8", "S100A9", "VCAN", "FCN1", "CSF3R", "LGALS2", "MNDA", "CTSS"],
    "CD16 Mono": ["FCGR3A", "MS4A7", "CDKN1C", "LST1", "AIF1", "IFITM3", "RHOC", "SMIM25", "TCF7L2", "HES4"],
    "cDC2": ["FCER1A", "CD1C", "CLEC10A", "HLA-DQA1", "HLA-DRB1", "ENHO", "PLD4", "GSN", "SLC38A1", "CD1E"],
    "pDC": ["LILRA4", "IL3RA", "CLEC4C", "TCF4", "IRF7", "GZMB", "SERPINF1", "ITM2C", "PLD4", "JCHAIN"],
    "Platelet": ["PPBP", "PF4", "NRGN", "GNG11", "CAVIN2", "TUBB1", "CLU", "GP9", "ITGA2B", "SPARC"],
    "Erythrocyte": ["HBB", "HBA1", "HBA2", "ALAS2", "CA1", "SLC4A1", "AHSP", "HBD", "SNCA", "GYPA"],
}
ENSEMBL = {"IL7R": "ENSG00000168685", "CCR7": "ENSG00000126353", "CD8A": "ENSG00000153563",
           "GNLY": "ENSG00000115523", "NKG7": "ENSG00000105374", "MS4A1": "ENSG00000156738",
           "CD79A": "ENSG00000105369", "LYZ": "ENSG00000090382", "CD14": "ENSG00000170458",
           "FCGR3A": "ENSG00000203747", "FCER1A": "ENSG00000179639", "PPBP": "ENSG00000163736",
           "HBB": "ENSG00000244734", "ISG15": "ENSG00000187608", "IFI6": "ENSG00000126709",
           "IFI44L": "ENSG00000137959", "MX1": "ENSG00000157601", "MT-CO1": "ENSG00000198804"}


def scrnaseq_qc() -> Script:
    s = Script("01_scrnaseq_qc_pbmc", "openai", "array", seed=1, system=(
        "You are BioAgent, an autonomous bioinformatics assistant working in a sandbox with Python 3.11 "
        "(scanpy 1.10.1, anndata 0.10.7, scrublet 0.2.3), R 4.4 and common command-line tools. Run code "
        "with the tools, report every threshold you apply with the number of cells it removes, and never "
        "invent results."))
    samples = [f"GSM45090{21 + i}" for i in range(20)]
    conditions = ["COVID-19 severe"] * 6 + ["COVID-19 mild"] * 8 + ["healthy"] * 6
    s.must_survive = {
        "identifiers": ["GSE149689", "GSM4509039", "MT-CO1", "ENSG00000198804"],
        "errors": ["Reindexing only valid with uniquely valued Index objects",
                   "n_components=30 must be between 0 and min(n_samples, n_features)=26"],
        "decisions": ["pct_counts_mt < 15", "exclude GSM4509039"],
    }
    s.user("We have 10x Chromium 3' v3 PBMC data from GEO series GSE149689 (COVID-19 and healthy donors, "
           "20 libraries). The filtered feature-barcode matrices are under /data/GSE149689/raw/. Please run "
           "QC, remove doublets and do a first clustering with cell-type annotation. Tell me every "
           "threshold you use and why.")
    s.say("Plan:\n1. Inventory the 20 libraries and load each filtered matrix.\n2. Compute per-cell QC "
          "metrics (genes, UMIs, mitochondrial fraction) per sample.\n3. Choose thresholds from the "
          "distributions, not from defaults.\n4. Detect doublets per sample with Scrublet before merging.\n"
          "5. Normalise, select HVGs, PCA, neighbours, Leiden clustering, marker genes, annotation.")
    listing = []
    for i, gsm in enumerate(samples):
        for f, size in (("barcodes.tsv.gz", 38_000 + i * 911), ("features.tsv.gz", 304_112),
                        ("matrix.mtx.gz", 61_000_000 + i * 1_733_003)):
            listing.append(f"-rw-r--r-- 1 agent agent {size:>11,} Mar 14 09:{i:02d} /data/GSE149689/raw/{gsm}/{f}")
    s.call("run_shell", {"command": "ls -l /data/GSE149689/raw/*/"}, "\n".join(listing),
           "Listing the libraries first.")
    s.call("run_python", {"code": (
        "import scanpy as sc, anndata as ad\nadatas = {}\nfor gsm in samples:\n"
        "    adatas[gsm] = sc.read_10x_mtx(f'/data/GSE149689/raw/{gsm}', var_names='gene_symbols', cache=False)\n"
        "adata = ad.concat(adatas, label='sample', join='outer')")},
        "/opt/conda/lib/python3.11/site-packages/anndata/_core/anndata.py:1820: UserWarning: Variable names "
        "are not unique. To make them unique, call `.var_names_make_unique`.\n  utils.warn_names_duplicates(\"var\")\n"
        "Traceback (most recent call last):\n  File \"<sandbox>\", line 6, in <module>\n"
        "  File \"/opt/conda/lib/python3.11/site-packages/anndata/_core/merge.py\", line 1287, in concat\n"
        "    alt_annot = merge_dataframes(\n"
        "  File \"/opt/conda/lib/python3.11/site-packages/pandas/core/indexes/base.py\", line 3875, in reindex\n"
        "    raise InvalidIndexError(self._requires_unique_msg)\n"
        "pandas.errors.InvalidIndexError: Reindexing only valid with uniquely valued Index objects",
        "Loading all 20 matrices and concatenating them.", error=True)
    s.say("The concatenation failed because gene symbols are duplicated within each matrix (for example "
          "TBCE and HSPA14 appear twice in the 10x reference), so pandas cannot align the var indices. "
          "The fix is to call var_names_make_unique() on every sample before ad.concat; I will keep the "
          "Ensembl IDs in adata.var['gene_ids'] so nothing is lost.")
    s.call("run_python", {"code": (
        "for gsm, a in adatas.items():\n    a.var_names_make_unique()\n"
        "adata = ad.concat(adatas, label='sample', join='outer', merge='same')\n"
        "adata.var['mt'] = adata.var_names.str.startswith('MT-')\n"
        "sc.pp.calculate_qc_metrics(adata, qc_vars=['mt'], percent_top=None, log1p=False, inplace=True)\n"
        "print(adata)\nprint(qc_table(adata))")},
        "AnnData object with n_obs × n_vars = 168412 × 33538\n    obs: 'sample', 'n_genes_by_counts', "
        "'total_counts', 'total_counts_mt', 'pct_counts_mt'\n    var: 'gene_ids', 'feature_types', 'mt'\n\n"
        + table(["sample", "condition", "n_cells", "median_genes", "median_umis", "median_pct_mt", "p95_pct_mt",
                 "cells_pct_mt_gt_15"],
                [[gsm, cond, n, g, u, f"{m:.1f}", f"{p:.1f}", k]
                 for gsm, cond in zip(samples, conditions, strict=True)
                 for n, g, u, m, p, k in [(s.rng.randint(5200, 11800) if gsm != "GSM4509039" else 312,
                                           s.rng.randint(900, 2100), s.rng.randint(2400, 7800),
                                           s.rng.uniform(3.5, 9.5), s.rng.uniform(11, 24),
                                           s.rng.randint(80, 1400))]]),
        "The matrices concatenate now; computing QC metrics per cell and summarising per sample.")
    s.call("run_python", {"code": "print(adata.obs.sample(220, random_state=0).to_string())"},
           table(["barcode", "sample", "n_genes_by_counts", "total_counts", "total_counts_mt", "pct_counts_mt"],
                 [[barcode(s.rng), s.rng.choice(samples), g, u, int(u * m / 100), f"{m:.2f}"]
                  for g, u, m in ((s.rng.randint(150, 6500), s.rng.randint(300, 40000), s.rng.uniform(0.5, 60))
                                  for _ in range(220))]),
           "Looking at individual cells to see what the tails of the distributions are.")
    s.say("Mitochondrial fraction is the main driver of low-quality cells here. MT-CO1 "
          "(ENSG00000198804) and MT-ND4 dominate the mitochondrial counts in the severe COVID-19 "
          "samples. The 95th percentile of pct_counts_mt is between 11 and 24 % across samples, and the "
          "distribution is bimodal in four severe samples. We decided to use pct_counts_mt < 15 (15 %) "
          "as the mitochondrial threshold for all samples, together with min_genes=200 and "
          "max_genes=6000, and min_cells=3 for genes. GSM4509039 has only 312 cells before filtering.")
    after = [[gsm, n, n - r] for gsm in samples for n, r in [(s.rng.randint(5000, 11000), s.rng.randint(200, 1500))]]
    after[18] = ["GSM4509039", 312, 26]
    s.call("run_python", {"code": (
        "sc.pp.filter_cells(adata, min_genes=200)\nsc.pp.filter_cells(adata, max_genes=6000)\n"
        "adata = adata[adata.obs.pct_counts_mt < 15].copy()\nsc.pp.filter_genes(adata, min_cells=3)\n"
        "print(adata.obs.groupby('sample').size())")},
        table(["sample", "cells_before", "cells_after"], after)
        + "\nTotal: 168,412 cells before, 141,977 after QC (15.7 % removed); 24,117 genes kept.",
        "Applying the thresholds.")
    s.call("run_python", {"code": (
        "import scrublet as scr\nfor gsm in samples:\n    sub = adata[adata.obs['sample'] == gsm]\n"
        "    s = scr.Scrublet(sub.X, expected_doublet_rate=0.06)\n"
        "    scores, calls = s.scrub_doublets(min_counts=2, min_cells=3, n_prin_comps=30)")},
        "Preprocessing...\nSimulating doublets...\nEmbedding transcriptomes using PCA...\n"
        "Calculating doublet scores...\nAutomatically set threshold at doublet score = 0.27\n"
        "Detected doublet rate = 5.1%\n[... 17 samples done ...]\nPreprocessing...\n"
        "Traceback (most recent call last):\n  File \"<sandbox>\", line 5, in <module>\n"
        "  File \"/opt/conda/lib/python3.11/site-packages/sklearn/decomposition/_pca.py\", line 510, in _fit_full\n"
        "    raise ValueError(\nValueError: n_components=30 must be between 0 and min(n_samples, "
        "n_features)=26 with svd_solver='full'", "Running Scrublet per sample (doublets must be called "
        "before merging, because heterotypic doublets are defined within a library).", error=True)
    s.say("Scrublet failed on GSM4509039: after QC it has only 26 cells, fewer than the 30 principal "
          "components requested. Because 26 cells cannot support doublet calling or contribute to "
          "clustering, I decided to exclude GSM4509039 from the analysis rather than lower n_prin_comps "
          "for one sample. The remaining 19 libraries keep n_prin_comps=30.")
    rates = [[gsm, f"{s.rng.uniform(0.27, 0.36):.2f}", f"{s.rng.uniform(3.9, 8.8):.1f}%", s.rng.randint(250, 900)]
             for gsm in samples if gsm != "GSM4509039"]
    s.call("run_python", {"code": "adata = adata[adata.obs['sample'] != 'GSM4509039'].copy()\nrun_scrublet_all(adata)"},
           table(["sample", "threshold", "doublet_rate", "n_doublets"], rates)
           + "\nRemoved 10,482 predicted doublets (7.4 %); 131,469 cells remain.",
           "Excluding the tiny library and re-running doublet detection.")
    s.call("run_python", {"code": (
        "sc.pp.normalize_total(adata, target_sum=1e4)\nsc.pp.log1p(adata)\n"
        "sc.pp.highly_variable_genes(adata, n_top_genes=3000, batch_key='sample', flavor='seurat_v3', layer='counts')\n"
        "sc.tl.pca(adata, n_comps=50)\nsc.pp.neighbors(adata, n_neighbors=15, n_pcs=30)\n"
        "sc.tl.leiden(adata, resolution=0.8)\nprint(adata.obs.leiden.value_counts())")},
        table(["leiden", "n_cells"], [[i, n] for i, n in enumerate(sorted((s.rng.randint(600, 22000)
                                                                            for _ in range(17)), reverse=True))]),
        "Normalising and clustering.")
    rows = []
    for cluster, (ctype, genes) in enumerate(PBMC_MARKERS.items()):
        for rank, gene in enumerate(genes):
            rows.append([cluster, ctype, rank + 1, gene, ENSEMBL.get(gene, ""), f"{s.rng.uniform(1.2, 7.5):.2f}",
                         f"{10 ** -s.rng.uniform(20, 300):.2e}", f"{s.rng.uniform(0.55, 0.99):.2f}",
                         f"{s.rng.uniform(0.01, 0.3):.2f}"])
    s.call("run_python", {"code": "sc.tl.rank_genes_groups(adata, 'leiden', method='wilcoxon')\nprint(top_markers(adata, 10))"},
           table(["cluster", "provisional_label", "rank", "gene", "ensembl", "logfoldchange", "pvals_adj",
                  "pct_in", "pct_out"], rows), "Marker genes per cluster (Wilcoxon).")
    s.say("Annotation from the markers: cluster 0 is CD4 T naive (IL7R, CCR7), 1 CD8 T effector "
          "(CD8A, GZMK), 2 NK (GNLY, NKG7), 3 naive B (MS4A1, CD79A), 4 plasmablasts (MZB1, JCHAIN), "
          "5 CD14 monocytes (LYZ, CD14, S100A8), 6 CD16 monocytes (FCGR3A), 7 cDC2 (FCER1A, CD1C), "
          "8 pDC (LILRA4), 9 platelets (PPBP, PF4) and 10 erythrocytes (HBB, HBA1). We will remove "
          "cluster 10 (erythrocytes, 1,284 cells) because red cells are contamination from incomplete "
          "RBC lysis, and keep platelets as a separate label.")
    s.user("Good. Can you check whether type I interferon response genes (ISG15, IFI6, IFI44L, MX1; "
           "GO:0060337 type I interferon signaling pathway) are higher in the COVID-19 samples, per cell type?")
    score_rows = [[ct, cond, f"{s.rng.uniform(-0.1, 1.6):.3f}", s.rng.randint(300, 9000)]
                  for ct in list(PBMC_MARKERS)[:9] for cond in ("severe", "mild", "healthy")]
    s.call("run_python", {"code": (
        "ifn = ['ISG15','IFI6','IFI44L','MX1','IFIT1','IFIT3','OAS1','RSAD2']\n"
        "sc.tl.score_genes(adata, ifn, score_name='ifn_score')\nprint(ifn_table(adata))")},
        table(["cell_type", "condition", "mean_ifn_score", "n_cells"], score_rows),
        "Scoring an interferon-stimulated gene set per cell.")
    s.say("The interferon score is higher in COVID-19 than in healthy donors in every cell type, most "
          "strongly in CD14 and CD16 monocytes and pDC, and it is higher in mild than in severe disease, "
          "consistent with the original study. These are per-cell means, so the next step should be a "
          "pseudobulk test per donor to avoid pseudoreplication.")
    s.user("Is batch a problem? The libraries were prepared on three different dates.")
    s.say("Open question: should we integrate with Harmony on the preparation date? The UMAP shows "
          "mild separation of two severe samples, but they are also the sickest donors, so correcting "
          "for date could remove biology. I suggest checking kBET and LISI per cell type before deciding.")
    s.user("OK, write the final summary of what you did.")
    s.say("Final summary: 19 of 20 libraries from GSE149689 kept (GSM4509039 excluded: 26 cells after "
          "QC). QC thresholds: min_genes=200, max_genes=6000, pct_counts_mt < 15, genes in at least 3 "
          "cells. Scrublet per sample removed 10,482 doublets (7.4 %). After removing 1,284 erythrocytes, "
          "130,185 cells in 11 annotated populations. Interferon response is elevated in COVID-19, "
          "especially monocytes. Files: /results/GSE149689/pbmc_qc_clustered.h5ad and "
          "/results/GSE149689/markers.tsv.")
    return s


# =============================================================================================
# 2. Germline variant calling with GATK (Anthropic, object with system)
# =============================================================================================


def gatk_germline() -> Script:
    s = Script("02_gatk_germline_exome", "anthropic", "object", seed=2, system=(
        "You are a genomics analysis agent with shell access on a 32-core node (GATK 4.5.0.0, "
        "bwa-mem2 2.2.1, samtools 1.19, fastp 0.23.4, hap.py 0.3.15). Reference data is under /ref. "
        "Explain each step before running it and keep a record of parameters."))
    s.must_survive = {
        "identifiers": ["NA12878", "rs1801133", "rs429358"],
        "errors": ["incompatible contigs", "reads with no platform information"],
        "decisions": ["hard filters", "QD < 2.0"],
    }
    s.user("Call germline SNVs and indels on the whole-exome sample NA12878 (GIAB HG001), FASTQs at "
           "/data/wes/NA12878_R1.fastq.gz and /data/wes/NA12878_R2.fastq.gz, against GRCh38 with the "
           "Twist exome targets /ref/twist_exome_2.0_hg38.bed. Then benchmark against the GIAB v4.2.1 truth set.")
    s.say("I'll follow GATK best practices for a single germline exome: fastp trimming, bwa-mem2 alignment "
          "to GRCh38 (no-alt analysis set), MarkDuplicates, BQSR with the GATK bundle known sites, "
          "HaplotypeCaller in GVCF mode restricted to the targets with 100 bp padding, genotyping, "
          "filtering, and hap.py against the HG001 truth set.")
    fastp = ["Read1 before filtering:", "total reads: 48211806", "total bases: 7231770900",
             "Q20 bases: 7011042812(96.9478%)", "Q30 bases: 6650330011(91.9597%)", "",
             "Read2 before filtering:", "total reads: 48211806", "total bases: 7231770900",
             "Q20 bases: 6902331011(95.4446%)", "Q30 bases: 6398412207(88.4765%)", "",
             "Filtering result:", "reads passed filter: 95630112", "reads failed due to low quality: 701002",
             "reads failed due to too many N: 12044", "reads failed due to too short: 80454",
             "reads with adapter trimmed: 8211004", "bases trimmed due to adapters: 301204413", "",
             "Duplication rate: 11.2041%", "Insert size peak (evaluated by paired-end reads): 182"]
    for lane in range(1, 41):
        fastp.append(f"[lane {lane:02d}] reads: {s.rng.randint(2_300_000, 2_500_000)} "
                     f"mean_q: {s.rng.uniform(35.1, 36.4):.2f} gc: {s.rng.uniform(47.8, 49.9):.1f}%")
    s.call("bash", {"command": "fastp -i /data/wes/NA12878_R1.fastq.gz -I /data/wes/NA12878_R2.fastq.gz "
                               "-o trim/R1.fq.gz -O trim/R2.fq.gz --detect_adapter_for_pe -w 16 -j trim/fastp.json"},
           "\n".join(fastp))
    s.call("bash", {"command": "bwa-mem2 mem -t 32 /ref/GRCh38_no_alt/GRCh38.fa trim/R1.fq.gz trim/R2.fq.gz "
                               "| samtools sort -@8 -o aln/NA12878.bam && samtools index aln/NA12878.bam"},
           "\n".join([f"[M::mem_process_seqs] Processed {s.rng.randint(640000, 660000)} reads in "
                      f"{s.rng.uniform(60, 75):.3f} CPU sec, {s.rng.uniform(2.1, 2.6):.3f} real sec"
                      for _ in range(60)] + ["[main] Real time: 1893.204 sec; CPU: 58210.113 sec"]),
           "Aligning with bwa-mem2 (no read group yet; I'll check what GATK needs).")
    s.call("bash", {"command": "gatk MarkDuplicates -I aln/NA12878.bam -O aln/NA12878.md.bam -M qc/md_metrics.txt"},
           "INFO  MarkDuplicates  Start of doWork freeMemory: 2062371608\n"
           "INFO  MarkDuplicates  Reading input file and constructing read end information.\n"
           "ERROR: Read name A00123:8:H7KLMDSXY:1:1101:10004:10019, The input .bam file contains reads with "
           "no platform information. First observed at read with name = A00123:8:H7KLMDSXY:1:1101:10004:10019\n"
           "A USER ERROR has occurred: Read A00123:8:H7KLMDSXY:1:1101:10004:10019 is malformed: The input .bam "
           "file contains reads with no platform information.", error=True)
    s.say("MarkDuplicates and later BQSR need read groups (ID, SM, PL, LB, PU), which bwa-mem2 does not "
          "add by default. Rather than re-aligning, I'll add them with AddOrReplaceReadGroups "
          "(RGID=H7KLMDSXY.1, RGSM=NA12878, RGPL=ILLUMINA, RGLB=twist_lib1, RGPU=H7KLMDSXY.1.NA12878).")
    md = table(["LIBRARY", "UNPAIRED_READS_EXAMINED", "READ_PAIRS_EXAMINED", "UNMAPPED_READS",
                "READ_PAIR_DUPLICATES", "PERCENT_DUPLICATION", "ESTIMATED_LIBRARY_SIZE"],
               [["twist_lib1", 41022, 47522310, 188321, 5210398, "0.109813", 214455012]])
    hist = table(["BIN", "CoverageMult", "all_sets", "non_optical_sets"],
                 [[f"{b}.0", f"{1 + b * 0.83:.6f}", s.rng.randint(1000, 4_000_000), s.rng.randint(1000, 4_000_000)]
                  for b in range(1, 60)])
    s.call("bash", {"command": "gatk AddOrReplaceReadGroups -I aln/NA12878.bam -O aln/NA12878.rg.bam "
                               "-ID H7KLMDSXY.1 -SM NA12878 -PL ILLUMINA -LB twist_lib1 -PU H7KLMDSXY.1.NA12878 && "
                               "gatk MarkDuplicates -I aln/NA12878.rg.bam -O aln/NA12878.md.bam -M qc/md_metrics.txt"},
           "## METRICS CLASS\tpicard.sam.DuplicationMetrics\n" + md + "\n\n## HISTOGRAM\tjava.lang.Double\n" + hist)
    s.call("bash", {"command": "gatk BaseRecalibrator -I aln/NA12878.md.bam -R /ref/GRCh38_no_alt/GRCh38.fa "
                               "--known-sites /ref/dbsnp_138.hg19.vcf.gz --known-sites /ref/Mills_and_1000G_gold_standard.indels.hg38.vcf.gz "
                               "-L /ref/twist_exome_2.0_hg38.bed -ip 100 -O bqsr/recal.table"},
           "Using GATK jar /opt/gatk-4.5.0.0/gatk-package-4.5.0.0-local.jar\n"
           "INFO  BaseRecalibrator  Initializing engine\n"
           "A USER ERROR has occurred: Input files reference and features have incompatible contigs: "
           "No overlapping contigs found.\n  reference contigs = [chr1, chr2, chr3, chr4, chr5, ...]\n"
           "  features contigs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...]", error=True)
    s.say("The error is because /ref/dbsnp_138.hg19.vcf.gz is the hg19 dbSNP build with Ensembl-style "
          "contig names (1, 2, …), so it cannot be used with GRCh38. The fix is to use the GRCh38 bundle "
          "file /ref/Homo_sapiens_assembly38.dbsnp138.vcf.gz, which has chr-prefixed contigs and matching "
          "coordinates. Mills indels were already the hg38 version.")
    s.call("bash", {"command": "gatk BaseRecalibrator ... --known-sites /ref/Homo_sapiens_assembly38.dbsnp138.vcf.gz ... && "
                               "gatk ApplyBQSR -I aln/NA12878.md.bam --bqsr-recal-file bqsr/recal.table -O aln/NA12878.bqsr.bam"},
           "\n".join([f"INFO  ProgressMeter  chr{c}:{s.rng.randint(1_000_000, 200_000_000)}  "
                      f"{s.rng.uniform(0.5, 9.5):.1f}  {s.rng.randint(1_000_000, 90_000_000)}  "
                      f"{s.rng.randint(400_000, 900_000)}" for c in list(range(1, 23)) * 3]
                     + ["INFO  BaseRecalibrator  Shutting down engine",
                        "Tool returned: 62104533", "INFO  ApplyBQSR  Done"]))
    s.call("bash", {"command": "gatk HaplotypeCaller -R /ref/GRCh38_no_alt/GRCh38.fa -I aln/NA12878.bqsr.bam "
                               "-L /ref/twist_exome_2.0_hg38.bed -ip 100 -ERC GVCF -O vcf/NA12878.g.vcf.gz && "
                               "gatk GenotypeGVCFs -R /ref/GRCh38_no_alt/GRCh38.fa -V vcf/NA12878.g.vcf.gz -O vcf/NA12878.vcf.gz"},
           "\n".join([f"INFO  ProgressMeter  chr{c}:{s.rng.randint(1_000_000, 200_000_000)}  "
                      f"{s.rng.uniform(1, 60):.1f}  {s.rng.randint(100_000, 9_000_000)}  "
                      f"{s.rng.randint(50_000, 300_000)}" for c in list(range(1, 23)) * 2]
                     + ["INFO  HaplotypeCaller  80412 read(s) filtered by: MappingQualityReadFilter",
                        "INFO  GenotypeGVCFs  Done. Elapsed time: 6.21 minutes",
                        "Total variants: 43,918 (SNPs 40,112; indels 3,806); Ti/Tv (SNPs) 2.61"]))
    s.say("We decided to apply GATK hard filters rather than VQSR: a single exome has roughly 40k SNPs, "
          "below the number VQSR needs to train a stable Gaussian mixture model. SNP filters: QD < 2.0, "
          "FS > 60.0, MQ < 40.0, SOR > 3.0, MQRankSum < -12.5, ReadPosRankSum < -8.0. Indel filters: "
          "QD < 2.0, FS > 200.0, ReadPosRankSum < -20.0.")
    variants = [("chr1", 11796321, "rs1801133", "G", "A", "MTHFR", "c.665C>T", "p.Ala222Val", "0/1"),
                ("chr19", 44908684, "rs429358", "T", "C", "APOE", "c.388T>C", "p.Cys130Arg", "0/0"),
                ("chr19", 44908822, "rs7412", "C", "T", "APOE", "c.526C>T", "p.Arg176Cys", "0/1"),
                ("chr7", 117559590, "rs113993960", "ATCT", "A", "CFTR", "c.1521_1523del", "p.Phe508del", "0/0"),
                ("chr13", 32338103, "rs144848", "A", "C", "BRCA2", "c.1114A>C", "p.Asn372His", "1/1"),
                ("chr6", 26091179, "rs1800562", "G", "A", "HFE", "c.845G>A", "p.Cys282Tyr", "0/0"),
                ("chr16", 89919709, "rs1805007", "C", "T", "MC1R", "c.451C>T", "p.Arg151Cys", "0/1")]
    rows = [[c, p, r, ref, alt, f"{s.rng.uniform(200, 3000):.1f}", "PASS", g, gene, hg, prot]
            for c, p, r, ref, alt, gene, hg, prot, g in variants]
    for _ in range(120):
        chrom = f"chr{s.rng.randint(1, 22)}"
        rows.append([chrom, s.rng.randint(100_000, 150_000_000), f"rs{s.rng.randint(1_000_000, 999_999_999)}",
                     s.rng.choice("ACGT"), s.rng.choice("ACGT"), f"{s.rng.uniform(30, 3000):.1f}",
                     s.rng.choice(["PASS"] * 9 + ["QD2", "FS60", "SOR3"]), s.rng.choice(["0/1", "1/1"]), "",
                     "", ""])
    s.call("bash", {"command": "gatk VariantFiltration ... && bcftools query -f '%CHROM\\t%POS\\t%ID\\t%REF\\t%ALT\\t%QUAL\\t%FILTER\\t[%GT]\\t%GENE\\t%HGVSc\\t%HGVSp\\n' vcf/NA12878.filtered.vcf.gz | head -130"},
           table(["CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "GT", "GENE", "HGVSc", "HGVSp"], rows),
           "Filtering and looking at annotated variants.")
    s.call("bash", {"command": "hap.py /ref/giab/HG001_GRCh38_1_22_v4.2.1_benchmark.vcf.gz vcf/NA12878.filtered.vcf.gz "
                               "-f /ref/giab/HG001_GRCh38_1_22_v4.2.1_benchmark.bed -T /ref/twist_exome_2.0_hg38.bed "
                               "-r /ref/GRCh38_no_alt/GRCh38.fa -o happy/NA12878 --engine vcfeval"},
           table(["Type", "Filter", "TRUTH.TOTAL", "TRUTH.TP", "TRUTH.FN", "QUERY.FP", "METRIC.Recall",
                  "METRIC.Precision", "METRIC.F1_Score"],
                 [["INDEL", "ALL", 2011, 1893, 118, 71, "0.941323", "0.963891", "0.952474"],
                  ["INDEL", "PASS", 2011, 1871, 140, 38, "0.930383", "0.980115", "0.954602"],
                  ["SNP", "ALL", 21482, 21264, 218, 290, "0.989852", "0.986546", "0.988196"],
                  ["SNP", "PASS", 21482, 21170, 312, 141, "0.985476", "0.993382", "0.989413"]]))
    s.user("The indel recall looks low. What do you suggest?")
    s.say("Indel recall of 0.930 (PASS) is typical for exomes with hard filters; most false negatives are "
          "in homopolymers and at target edges. Options: (1) rerun HaplotypeCaller with "
          "--pcr-indel-model NONE if the library is PCR-free (it is not: Twist uses PCR), (2) relax "
          "ReadPosRankSum < -20.0 for indels, or (3) try DeepVariant WES model, which typically reaches "
          "0.96–0.97 indel recall on HG001 exomes. Open question: is a DeepVariant run allowed on this "
          "node (it needs the GPU image)?")
    s.user("Yes, GPUs are fine. But first, report what we have.")
    s.say("Final report: NA12878 exome, 95.6M read pairs after fastp, 11.0 % duplicates, BQSR with the "
          "GRCh38 dbSNP 138 bundle; 43,918 raw variants, hard-filtered; versus GIAB v4.2.1 within the "
          "Twist targets: SNP recall 0.985, precision 0.993; indel recall 0.930, precision 0.980. Files: "
          "vcf/NA12878.filtered.vcf.gz and happy/NA12878.summary.csv. Next: DeepVariant WES on GPU.")
    return s


# =============================================================================================
# 3. CRISPR screen with MAGeCK (OpenAI, JSON Lines)
# =============================================================================================

RESISTANCE = ["KEAP1", "NF1", "PTEN", "CUL3", "TSC2", "NF2", "CDKN2A", "TP53", "RB1", "STK11", "DUSP4",
              "SPRED1", "LZTR1", "TSC1", "MED12", "KMT2D"]
SENSITIZERS = ["KRAS", "SHOC2", "PTPN11", "SOS1", "MAPK1", "RAF1", "CCND1", "CDK4", "ITGB1", "YAP1"]


def crispr_mageck() -> Script:
    s = Script("03_crispr_screen_mageck", "openai", "jsonl", seed=3, system=(
        "You are a functional genomics agent. Tools: a shell with MAGeCK 0.5.9.5, MAGeCKFlute, cutadapt "
        "4.4 and Python 3.11 (pandas, seaborn). Report read mapping rates, Gini index and zero-count "
        "sgRNAs for every sample."))
    s.must_survive = {
        "identifiers": ["KEAP1", "NF1", "PTEN"],
        "errors": ["DMSO_rep3 specified in the control group is not found"],
        "decisions": ["--norm-method control", "--trim-5 AUTO"],
    }
    s.user("Genome-wide Brunello knockout screen (Addgene #73178, 77,441 sgRNAs) in NCI-H358 (KRAS G12C) "
           "treated with sotorasib 100 nM versus DMSO for 14 days, 3 replicates each, plus the plasmid. "
           "FASTQs are in /data/screen/fastq/ and the library is /data/screen/brunello.csv. Find the "
           "knockouts that confer resistance to sotorasib.")
    s.say("Plan: count sgRNAs with mageck count (all samples together so normalisation is shared), check "
          "mapping and library representation, then run mageck test (RRA) for sotorasib vs DMSO, "
          "positive selection for resistance, and MAGeCK MLE as a check.")
    fastqs = ["plasmid", "DMSO_R1", "DMSO_R2", "DMSO_R3", "SOTO_R1", "SOTO_R2", "SOTO_R3"]
    s.call("bash", {"command": "zcat /data/screen/fastq/DMSO_R1.fastq.gz | head -40"},
           "\n".join(f"@NB552{s.rng.randint(100, 999)}:41:HKL3CBGXN:1:11101:{s.rng.randint(1000, 25000)}:{s.rng.randint(1000, 20000)} 1:N:0:ATTACTCG\n"
                     f"{''.join(s.rng.choice('ACGT') for _ in range(s.rng.randint(0, 8)))}"
                     f"TTGTGGAAAGGACGAAACACCG{''.join(s.rng.choice('ACGT') for _ in range(20))}GTTTTAGAGCTAGAAATAGC\n+\n"
                     + "F" * 60 for _ in range(10)))
    s.say("Reads carry a variable-length stagger (0–8 nt) before the U6 promoter end CACCG, so the sgRNA "
          "does not start at a fixed position. I'll let MAGeCK find the offset with --trim-5 AUTO, which "
          "searches for the most frequent trimming length per file.")
    count_log = [f"INFO  @ Mon, 12 Aug 2024 10:{m:02d}:{s.rng.randint(10, 59)}: Parsing FASTQ file "
                 f"/data/screen/fastq/{f}.fastq.gz..." for m, f in enumerate(fastqs)]
    count_log += [f"INFO  @ Mon, 12 Aug 2024 10:1{m}:00: Processing {n}M reads.." for m, n in enumerate(range(1, 9))]
    count_log += ["INFO  Determining the trim-5 length of FASTQ file: staggered lengths 22-30 detected",
                  "INFO  Final size factor: 1.0214 0.9876 1.1022 0.9431 0.8898 1.0512 0.9991"]
    summary = [[f, f"/data/screen/fastq/{f}.fastq.gz", reads, mapped, f"{mapped / reads:.4f}", 77441, zero,
                f"{gini:.4f}"]
               for f in fastqs
               for reads, gini, zero in [(s.rng.randint(28_000_000, 41_000_000),
                                          s.rng.uniform(0.06, 0.09) if f.startswith(("plas", "DMSO")) else s.rng.uniform(0.12, 0.19),
                                          s.rng.randint(40, 300) if f.startswith(("plas", "DMSO")) else s.rng.randint(700, 2400))]
               for mapped in [int(reads * s.rng.uniform(0.78, 0.86))]]
    s.call("bash", {"command": "mageck count -l /data/screen/brunello.csv -n counts/screen --trim-5 AUTO "
                               "--sample-label plasmid,DMSO_R1,DMSO_R2,DMSO_R3,SOTO_R1,SOTO_R2,SOTO_R3 "
                               "--fastq " + " ".join(f"/data/screen/fastq/{f}.fastq.gz" for f in fastqs)},
           "\n".join(count_log) + "\n\ncounts/screen.countsummary.txt:\n"
           + table(["Label", "File", "Reads", "Mapped", "Percentage", "TotalsgRNAs", "Zerocounts", "GiniIndex"], summary),
           "Counting.")
    guides = [[f"{g}_{k}", g, *(s.rng.randint(0, 2500) for _ in fastqs)]
              for g in (RESISTANCE + SENSITIZERS + FILLER_GENES[:60]) for k in range(1, 5)]
    s.call("bash", {"command": "head -345 counts/screen.count.txt"},
           table(["sgRNA", "Gene", *fastqs], guides), "A look at the sgRNA counts.")
    s.say("Mapping rates are 78–86 %, zero-count sgRNAs are below 0.4 % in plasmid and DMSO, and the "
          "Gini index rises to 0.12–0.19 under sotorasib, as expected for strong positive selection.")
    s.call("bash", {"command": "mageck test -k counts/screen.count.txt -t SOTO_R1,SOTO_R2,SOTO_R3 "
                               "-c DMSO_rep1,DMSO_rep2,DMSO_rep3 -n rra/soto_vs_dmso"},
           "INFO  @ Mon, 12 Aug 2024 11:02:12: Welcome to MAGeCK v0.5.9.5. Command: test\n"
           "Traceback (most recent call last):\n  File \"/opt/conda/bin/mageck\", line 10, in <module>\n"
           "    sys.exit(main())\n  File \"/opt/conda/lib/python3.11/site-packages/mageck/crisprFunction.py\", "
           "line 612, in magecktest_main\nmageck: error: Label DMSO_rep3 specified in the control group is not "
           "found in the count table. Labels available: sgRNA,Gene,plasmid,DMSO_R1,DMSO_R2,DMSO_R3,SOTO_R1,SOTO_R2,SOTO_R3",
           "Running RRA, sotorasib versus DMSO.", error=True)
    s.say("My mistake: the control labels in the count table are DMSO_R1, DMSO_R2, DMSO_R3 (as given to "
          "mageck count), not DMSO_rep1..3. I'll rerun with the right labels. I'll also normalise to the "
          "1,000 non-targeting controls: we decided to use --norm-method control with "
          "--control-sgrna /data/screen/brunello_nontargeting.txt, because strong selection under "
          "sotorasib shifts the median of targeting sgRNAs and would bias median normalisation.")
    rows = []
    for rank, gene in enumerate(RESISTANCE + FILLER_GENES[60:120], 1):
        pos_fdr = 10 ** -s.rng.uniform(3, 6) if rank <= len(RESISTANCE) else s.rng.uniform(0.06, 1)
        rows.append([gene, 4, f"{10 ** -s.rng.uniform(5, 9):.3e}" if rank <= 16 else f"{s.rng.uniform(0.001, 0.5):.3e}",
                     f"{pos_fdr:.3e}", rank, s.rng.randint(2, 4), f"{s.rng.uniform(1.2, 5.1) if rank <= 16 else s.rng.uniform(-0.3, 0.9):.4f}"])
    s.call("bash", {"command": "mageck test -k counts/screen.count.txt -t SOTO_R1,SOTO_R2,SOTO_R3 -c DMSO_R1,DMSO_R2,DMSO_R3 "
                               "--norm-method control --control-sgrna /data/screen/brunello_nontargeting.txt "
                               "-n rra/soto_vs_dmso && sort -t$'\\t' -k10,10g rra/soto_vs_dmso.gene_summary.txt | head -80"},
           table(["id", "num", "pos|score", "pos|fdr", "pos|rank", "pos|goodsgrna", "pos|lfc"], rows))
    s.say("Positive selection (resistance) at FDR < 0.05: 16 genes, led by KEAP1, NF1, PTEN, CUL3 and "
          "TSC2. KEAP1 and CUL3 form the NRF2 (NFE2L2) ubiquitin ligase, so NRF2 activation is a "
          "convergent resistance mechanism; NF1 and SPRED1 loss re-activate RAS–MAPK upstream of KRAS G12C. "
          "We decided to call hits at FDR < 0.05 with at least 3 of 4 good sgRNAs.")
    neg = [[g, 4, f"{10 ** -s.rng.uniform(4, 8):.3e}", f"{10 ** -s.rng.uniform(2, 5):.3e}", r, 4,
            f"{-s.rng.uniform(1.0, 3.2):.4f}"] for r, g in enumerate(SENSITIZERS, 1)]
    s.call("bash", {"command": "sort -t$'\\t' -k4,4g rra/soto_vs_dmso.gene_summary.txt | cut -f1,2,3,5,6,7,8 | head -10"},
           table(["id", "num", "neg|score", "neg|fdr", "neg|rank", "neg|goodsgrna", "neg|lfc"], neg),
           "And the sensitisers (negative selection).")
    s.call("bash", {"command": "mageck mle -k counts/screen.count.txt -d design.txt --norm-method control "
                               "--control-sgrna /data/screen/brunello_nontargeting.txt -n mle/soto"},
           table(["Gene", "sgRNA", "soto|beta", "soto|z", "soto|p-value", "soto|fdr", "soto|wald-p-value", "soto|wald-fdr"],
                 [[g, 4, f"{s.rng.uniform(0.8, 2.6):.4f}", f"{s.rng.uniform(4, 11):.3f}", f"{10 ** -s.rng.uniform(4, 12):.3e}",
                   f"{10 ** -s.rng.uniform(2, 9):.3e}", f"{10 ** -s.rng.uniform(4, 12):.3e}", f"{10 ** -s.rng.uniform(2, 9):.3e}"]
                  for g in RESISTANCE]), "Cross-checking with MLE.")
    s.user("Which of these would you validate first, and with what?")
    s.say("I recommend validating KEAP1 first (top RRA and MLE hit, 4/4 sgRNAs), then NF1 and PTEN: "
          "individual sgRNA knockouts in NCI-H358 with a 7-day sotorasib dose-response (IC50 shift), and "
          "for KEAP1 an NRF2 target readout (NQO1, HMOX1). Open question: do we have a second KRAS G12C "
          "line (MIA PaCa-2 or SW1573) to test generality?")
    s.user("We have MIA PaCa-2. Please write the summary.")
    s.say("Final summary: Brunello screen in NCI-H358, sotorasib vs DMSO, 3 replicates; mapping 78–86 %; "
          "MAGeCK RRA with control-sgRNA normalisation; 16 resistance hits at FDR < 0.05 (KEAP1, NF1, PTEN, "
          "CUL3, TSC2, NF2, …), sensitisers KRAS, SHOC2, PTPN11. Validate KEAP1, NF1, PTEN in NCI-H358 and "
          "MIA PaCa-2. Results: rra/soto_vs_dmso.gene_summary.txt, mle/soto.gene_summary.txt.")
    return s


# =============================================================================================
# 4. Bulk RNA-seq with DESeq2 (OpenAI, object with messages)
# =============================================================================================

LPS_GENES = [("IL1B", "ENSG00000125538"), ("TNF", "ENSG00000232810"), ("IL6", "ENSG00000136244"),
             ("CXCL8", "ENSG00000169429"), ("CCL20", "ENSG00000115009"), ("PTGS2", "ENSG00000073756"),
             ("IL1A", "ENSG00000115008"), ("CXCL10", "ENSG00000169245"), ("IDO1", "ENSG00000131203"),
             ("IL12B", "ENSG00000113302"), ("CCL4", "ENSG00000275302"), ("IL23A", "ENSG00000110944"),
             ("SOD2", "ENSG00000112096"), ("NFKBIA", "ENSG00000100906"), ("TNFAIP3", "ENSG00000118503"),
             ("IRF1", "ENSG00000125347"), ("CD274", "ENSG00000120217"), ("ISG15", "ENSG00000187608"),
             ("MRC1", "ENSG00000260314"), ("CD163", "ENSG00000177575"), ("FOLR2", "ENSG00000165457"),
             ("LYVE1", "ENSG00000133800"), ("SELENOP", "ENSG00000250722"), ("STAB1", "ENSG00000010327")]


def bulk_deseq2() -> Script:
    s = Script("04_bulk_rnaseq_deseq2", "openai", "object", seed=4, system=(
        "You are an RNA-seq analysis agent. You can run R 4.4 (DESeq2 1.44, tximport, apeglm, "
        "clusterProfiler 4.12, org.Hs.eg.db) and shell commands. Show the code you run."))
    s.must_survive = {
        "identifiers": ["ENSG00000125538", "ENST00000456328"],
        "errors": ["some values in assay are not integers",
                   "None of the transcripts in the quantification files are present"],
        "decisions": ["~ batch + condition", "apeglm"],
    }
    s.user("Salmon quantifications for 12 samples of human monocyte-derived macrophages (6 LPS 10 ng/ml "
           "for 4 h, 6 unstimulated; two batches of 3+3) are in /data/rnaseq/salmon/<sample>/quant.sf, "
           "the sample sheet is /data/rnaseq/samples.tsv. Find differentially expressed genes and run GO "
           "enrichment.")
    s.call("run_r", {"code": "samples <- read.delim('/data/rnaseq/samples.tsv'); print(samples)"},
           table(["sample", "donor", "condition", "batch", "rin", "reads_M"],
                 [[f"MDM{n:02d}", f"D{(n - 1) // 2 + 1}", "LPS" if n % 2 == 0 else "ctrl", "B1" if n <= 6 else "B2",
                   f"{s.rng.uniform(8.1, 9.8):.1f}", f"{s.rng.uniform(24, 41):.1f}"] for n in range(1, 13)]))
    s.call("run_r", {"code": (
        "library(tximport)\ntx2gene <- read.delim('/ref/gencode.v45.tx2gene.tsv', header=FALSE)\n"
        "files <- file.path('/data/rnaseq/salmon', samples$sample, 'quant.sf')\n"
        "txi <- tximport(files, type='salmon', tx2gene=tx2gene)")},
        "reading in files with read_tsv\n1 2 3 4 5 6 7 8 9 10 11 12 \nsummarizing abundance\n"
        "Error in summarizeToGene(txi, tx2gene = tx2gene, varReduce = varReduce, ignoreTxVersion = ignoreTxVersion,  : \n"
        "  None of the transcripts in the quantification files are present\n  in the first column of tx2gene. "
        "Check to see that you are using the same annotation for both.\n\nExample IDs (file): [ENST00000456328, ENST00000450305, ENST00000488147, ...]\n\n"
        "Example IDs (tx2gene): [ENST00000456328.2, ENST00000450305.2, ENST00000488147.1, ...]",
        "Importing transcript quantifications and summarising to genes.")
    s.call("bash", {"command": "head -200 /data/rnaseq/salmon/MDM01/quant.sf"},
           table(["Name", "Length", "EffectiveLength", "TPM", "NumReads"],
                 [[f"ENST00000{s.rng.randint(200_000, 700_000)}", n, f"{n - s.rng.uniform(150, 260):.3f}",
                   f"{s.rng.uniform(0, 300):.6f}", f"{s.rng.uniform(0, 5000):.3f}"]
                  for n in (s.rng.randint(300, 9000) for _ in range(200))]),
           "Checking the IDs in quant.sf.")
    s.say("The transcript IDs in quant.sf have no version suffix (Salmon was run on an index built "
          "without versions) while tx2gene has ENST00000456328.2. The fix is ignoreTxVersion=TRUE in "
          "tximport, which strips the versions before matching.")
    s.call("run_r", {"code": (
        "txi <- tximport(files, type='salmon', tx2gene=tx2gene, ignoreTxVersion=TRUE)\n"
        "dds <- DESeqDataSetFromMatrix(round(txi$abundance), samples, ~ condition)\n"
        "dds <- DESeqDataSet(SummarizedExperiment(txi$counts, colData=samples), design=~condition)")},
        "reading in files with read_tsv\n1 2 3 4 5 6 7 8 9 10 11 12 \nsummarizing abundance\n"
        "summarizing counts\nsummarizing length\n"
        "Error in DESeqDataSet(se, design = design, ignoreRank) : \n  some values in assay are not integers",
        "Building the DESeq2 object.")
    s.say("DESeq2 needs integer counts, and txi$counts are estimated (fractional) counts. The right fix is "
          "DESeqDataSetFromTximport, which rounds the counts and, importantly, uses txi$length as an "
          "offset to correct for transcript-length changes between samples. Rounding txi$abundance "
          "(TPM) would be wrong.")
    s.say("Design decision: the two batches differ (PCA below), and every donor has both conditions. "
          "We will use design ~ batch + condition; donor is nested in batch, and with 6 donors a "
          "~ donor + condition design would also work, but batch captures most of the variance. "
          "We decided to use lfcShrink with type='apeglm' for effect sizes, and call genes with "
          "padj < 0.05 and |log2FC| > 1.")
    pca = table(["sample", "PC1", "PC2", "condition", "batch"],
                [[f"MDM{n:02d}", f"{(28 if n % 2 == 0 else -27) + s.rng.uniform(-4, 4):.2f}",
                  f"{(9 if n <= 6 else -8) + s.rng.uniform(-3, 3):.2f}", "LPS" if n % 2 == 0 else "ctrl",
                  "B1" if n <= 6 else "B2"] for n in range(1, 13)])
    s.call("run_r", {"code": (
        "dds <- DESeqDataSetFromTximport(txi, samples, ~ batch + condition)\n"
        "dds <- dds[rowSums(counts(dds) >= 10) >= 3, ]\ndds <- DESeq(dds)\n"
        "vsd <- vst(dds); print(plotPCA(vsd, c('condition','batch'), returnData=TRUE))")},
        "using counts and average transcript lengths from tximport\nestimating size factors\n"
        "using 'avgTxLength' from assays(dds), correcting for library size\nestimating dispersions\n"
        "gene-wise dispersion estimates\nmean-dispersion relationship\nfinal dispersion estimates\n"
        "fitting model and testing\n18,244 genes kept (>= 10 counts in >= 3 samples)\n\nPCA (62% PC1, 14% PC2):\n" + pca)
    rows = []
    for gene, ens in LPS_GENES:
        up = gene not in ("MRC1", "CD163", "FOLR2", "LYVE1", "SELENOP", "STAB1")
        rows.append([ens, gene, f"{s.rng.uniform(50, 90000):.1f}", f"{(1 if up else -1) * s.rng.uniform(1.5, 9.8):.3f}",
                     f"{s.rng.uniform(0.1, 0.5):.3f}", f"{10 ** -s.rng.uniform(10, 200):.2e}"])
    for _ in range(150):
        rows.append([f"ENSG00000{s.rng.randint(100_000, 290_000)}", "", f"{s.rng.uniform(5, 5000):.1f}",
                     f"{s.rng.uniform(-4, 4):.3f}", f"{s.rng.uniform(0.1, 0.9):.3f}", f"{10 ** -s.rng.uniform(1, 30):.2e}"])
    s.call("run_r", {"code": (
        "res <- lfcShrink(dds, coef='condition_LPS_vs_ctrl', type='apeglm')\n"
        "sig <- subset(res, padj < 0.05 & abs(log2FoldChange) > 1)\nsummary(res, alpha=0.05)\n"
        "write.csv(as.data.frame(res), '/results/rnaseq/deseq2_LPS_vs_ctrl.csv')\nhead(sig[order(sig$padj),], 175)")},
        "out of 18244 with nonzero total read count\nadjusted p-value < 0.05\n"
        "LFC > 0 (up)       : 2841, 16%\nLFC < 0 (down)     : 2390, 13%\n\nsignificant at padj < 0.05 & |log2FC| > 1: "
        "1,962 up, 1,411 down\n\n" + table(["gene_id", "symbol", "baseMean", "log2FoldChange", "lfcSE", "padj"], rows),
        "Testing LPS vs control with apeglm shrinkage.")
    go_rows = [["GO:0032496", "response to lipopolysaccharide", "142/1890", f"{1e-41:.2e}"],
               ["GO:0006954", "inflammatory response", "211/1890", f"{3.2e-38:.2e}"],
               ["GO:0019221", "cytokine-mediated signaling pathway", "164/1890", f"{8.1e-33:.2e}"],
               ["GO:0034341", "response to type II interferon", "71/1890", f"{2.4e-21:.2e}"],
               ["GO:0002237", "response to molecule of bacterial origin", "149/1890", f"{4.4e-40:.2e}"],
               ["GO:0043123", "positive regulation of canonical NF-kappaB signal transduction", "77/1890", f"{6.0e-19:.2e}"]]
    for _ in range(60):
        go_rows.append([f"GO:{s.rng.randint(1000, 2001000):07d}", f"{s.rng.choice(GO_WORDS)} {s.rng.choice(GO_WORDS)} process",
                        f"{s.rng.randint(10, 90)}/1890",
                        f"{10 ** -s.rng.uniform(3, 15):.2e}"])
    s.call("run_r", {"code": "ego <- enrichGO(up_genes, OrgDb=org.Hs.eg.db, keyType='ENSEMBL', ont='BP', universe=tested)\nhead(ego, 66)"},
           table(["ID", "Description", "GeneRatio", "p.adjust"], go_rows), "GO enrichment of the up-regulated genes.")
    s.user("Are the down-regulated genes meaningful?")
    s.say("Yes: the down-regulated set is dominated by M2-like / tissue-resident markers (MRC1, CD163, "
          "FOLR2, LYVE1, SELENOP, STAB1), the expected shift away from an anti-inflammatory state after "
          "LPS. GO for down genes: endocytosis and lipid metabolism terms. Open question: should we add "
          "a donor random effect with dream (variancePartition) to check robustness?")
    s.user("Not needed now. Summarise.")
    s.say("Final summary: 12 MDM samples, DESeq2 from tximport with ignoreTxVersion, design ~ batch + "
          "condition, apeglm shrinkage; 1,962 up and 1,411 down at padj < 0.05, |log2FC| > 1. Top: IL1B, "
          "TNF, IL6, CXCL8, PTGS2. GO: response to lipopolysaccharide (GO:0032496), inflammatory response "
          "(GO:0006954). Tables: /results/rnaseq/deseq2_LPS_vs_ctrl.csv, /results/rnaseq/go_up.csv.")
    return s


# =============================================================================================
# 5. ATAC-seq peaks and differential accessibility (Anthropic, compact JSON array)
# =============================================================================================


def atac_peaks() -> Script:
    s = Script("05_atacseq_cd4_activation", "anthropic", "array-compact", seed=5, system="")
    s.must_survive = {
        "identifiers": ["ENCFF356LFX"],
        "errors": ["Unsorted positions on sequence"],
        "decisions": ["IDR < 0.05"],
    }
    s.user("ATAC-seq of human CD4+ T cells, resting versus activated (anti-CD3/CD28, 24 h), two donors "
           "each. Deduplicated BAMs aligned to hg38 are in /data/atac/bam/. Call peaks, do QC and find "
           "differentially accessible regions. Use the ENCODE blacklist ENCFF356LFX.")
    flag = "\n".join(f"{name}: {s.rng.randint(38_000_000, 61_000_000)} + 0 in total (QC-passed reads + QC-failed reads)\n"
                     f"{name}: {s.rng.uniform(96.5, 99.2):.2f}% mapped, {s.rng.uniform(8, 31):.2f}% chrM"
                     for name in ("rest_D1", "rest_D2", "act_D1", "act_D2"))
    s.call("bash", {"command": "for b in /data/atac/bam/*.bam; do samtools flagstat $b; done | grep -E 'total|mapped'"}, flag)
    s.say("chrM fractions of 8–31 % are normal for ATAC but I'll drop chrM reads before peak calling. Next, "
          "shift reads for the Tn5 insertion (+4/-5) with deepTools alignmentSieve.")
    s.call("bash", {"command": "alignmentSieve --ATACshift -b /data/atac/bam/rest_D1.bam -o shift/rest_D1.bam -p 8 && samtools index shift/rest_D1.bam"},
           "[E::hts_idx_push] Unsorted positions on sequence #1: 1000468 followed by 1000236\n"
           "samtools index: failed to create index for \"shift/rest_D1.bam\"", error=True)
    s.say("alignmentSieve writes reads in the order it processes them; after shifting, positions are no "
          "longer sorted, so indexing fails. The fix is to pipe the shifted BAM through samtools sort "
          "before samtools index.")
    s.call("bash", {"command": "for s in rest_D1 rest_D2 act_D1 act_D2; do alignmentSieve --ATACshift -b /data/atac/bam/$s.bam -o /dev/stdout -p 8 | samtools sort -@4 -o shift/$s.bam && samtools index shift/$s.bam; done"},
           "\n".join(f"shift/{x}.bam: {s.rng.randint(30_000_000, 50_000_000)} reads written, sorted, indexed"
                     for x in ("rest_D1", "rest_D2", "act_D1", "act_D2")))
    qc = table(["sample", "TSS_enrichment", "FRiP", "nucleosome_free_frac", "mono_nucleosome_frac", "peaks_macs3"],
               [[x, f"{s.rng.uniform(9, 15):.1f}", f"{s.rng.uniform(0.22, 0.38):.2f}", f"{s.rng.uniform(0.42, 0.55):.2f}",
                 f"{s.rng.uniform(0.25, 0.33):.2f}", s.rng.randint(62_000, 118_000)]
                for x in ("rest_D1", "rest_D2", "act_D1", "act_D2")])
    s.call("bash", {"command": "for s in rest_D1 act_D1; do samtools view -f 66 shift/$s.bam | awk '{print $9}' | sort -n | uniq -c | awk '$2<=600'; done"},
           table(["count", "fragment_length"], [[int(4e5 * (1.2 + __import__("math").sin(n / 10.5)) / (1 + n / 80)), n]
                                                for n in range(30, 601, 2)]), "Fragment length distribution.")
    s.call("bash", {"command": "for s in ...; do macs3 callpeak -t shift/$s.bam -f BAMPE -g hs -n $s --keep-dup all -q 0.01 --outdir peaks; done; ataqv ... ; python qc_table.py"}, qc)
    idr = [f"Number of reads per peak: {s.rng.randint(10, 90)}; IDR threshold 0.05 passed: {s.rng.randint(40000, 70000)} peaks"]
    idr += [f"chr{c}\t{s.rng.randint(1_000_000, 150_000_000)}\t{s.rng.randint(150, 2400)}\t{s.rng.uniform(0.001, 0.05):.4f}"
            for c in [s.rng.randint(1, 22) for _ in range(220)]]
    s.call("bash", {"command": "idr --samples peaks/act_D1_peaks.narrowPeak peaks/act_D2_peaks.narrowPeak --input-file-type narrowPeak --rank p.value --idr-threshold 0.05 -o idr/act.txt"},
           "\n".join(idr), "Checking replicate consistency with IDR.")
    s.say("We decided to keep peaks with IDR < 0.05 in each condition, merge the two conditions into a "
          "consensus set, and remove peaks overlapping the ENCODE blacklist ENCFF356LFX (hg38 v2). "
          "Consensus: 86,412 peaks after blacklist filtering.")
    da = [[f"chr{c}:{p}-{p + w}", g, f"{lfc:.2f}", f"{10 ** -s.rng.uniform(2, 40):.2e}"]
          for c, p, w, g, lfc in [(2, 203_867_700, 820, "CD28", 1.9), (4, 122_451_900, 1400, "IL2", 4.8),
                                  (12, 68_158_200, 900, "IFNG", 3.9), (12, 9_760_100, 600, "CD69", 3.1),
                                  (1, 7_915_600, 700, "TNFRSF9", 3.4), (6, 32_441_800, 500, "HLA-DRA", 2.2),
                                  (2, 190_970_000, 1100, "STAT4", 1.6), (18, 63_123_300, 500, "BCL2", -1.4),
                                  (10, 6_010_600, 450, "IL2RA", 3.8), (3, 187_745_600, 500, "BCL6", -2.0)]]
    da += [[f"chr{s.rng.randint(1, 22)}:{p}-{p + 500}", "", f"{s.rng.uniform(-3, 4):.2f}", f"{10 ** -s.rng.uniform(2, 12):.2e}"]
           for p in (s.rng.randint(1_000_000, 200_000_000) for _ in range(200))]
    s.call("run_r", {"code": "dba <- dba(sampleSheet='samples.csv'); dba <- dba.count(dba, peaks=consensus, summits=250); "
                             "dba <- dba.normalize(dba); dba <- dba.analyze(dba, method=DBA_DESEQ2); dba.report(dba, th=0.05)"},
           "4,812 differentially accessible sites at FDR < 0.05 (3,905 gained, 907 lost with activation)\n"
           + table(["region", "nearest_gene", "log2FC", "FDR"], da))
    homer = table(["Motif", "P-value", "% targets", "% background"],
                  [["BATF(bZIP)/Th17-BATF-ChIP-Seq", "1e-812", "38.1%", "9.2%"],
                   ["Fra1(bZIP)/BT549-Fra1-ChIP-Seq", "1e-790", "36.0%", "8.8%"],
                   ["NFAT(RHD)/Jurkat-NFATC1-ChIP-Seq", "1e-211", "24.4%", "11.0%"],
                   ["IRF4(IRF)/GM12878-IRF4-ChIP-Seq", "1e-96", "12.3%", "5.1%"],
                   ["NFkB-p65(RHD)/GM12787-p65-ChIP-Seq", "1e-74", "6.8%", "2.2%"]]
                  + [[f"{s.rng.choice(HOMER)}/{s.rng.choice(CELLS)}-ChIP-Seq", f"1e-{s.rng.randint(2, 60)}", f"{s.rng.uniform(2, 20):.1f}%", f"{s.rng.uniform(1, 10):.1f}%"]
                     for n in range(40)])
    s.call("bash", {"command": "findMotifsGenome.pl gained.bed hg38 homer_gained -size 200 -p 8"}, homer,
           "Motif enrichment in gained regions.")
    s.user("What do the motifs tell us, and what is still open?")
    s.say("Gained sites are dominated by AP-1/BATF and NFAT motifs, the canonical TCR-activation "
          "program, with IRF4 and NF-κB. Open question: do we have matched RNA-seq to link gained peaks "
          "to expression (for example at IL2 and IFNG)? That would let us call peak-gene links.")
    s.user("No RNA yet. Summarise the results.")
    s.say("Final summary: 4 libraries, TSS enrichment 9–15, FRiP 0.22–0.38; reads Tn5-shifted and sorted; "
          "MACS3 BAMPE peaks; IDR < 0.05 per condition; consensus 86,412 peaks after ENCFF356LFX blacklist; "
          "DiffBind/DESeq2: 4,812 differential sites (3,905 gained). Files: /results/atac/consensus.bed, "
          "/results/atac/diffbind_fdr05.tsv.")
    return s


# =============================================================================================
# 6. Plasma proteomics (Anthropic, JSON Lines)
# =============================================================================================

PLASMA = [("P02741", "CRP"), ("P0DJI8", "SAA1"), ("P02763", "ORM1"), ("P01009", "SERPINA1"), ("P00738", "HP"),
          ("P18428", "LBP"), ("P08571", "CD14"), ("P02787", "TF"), ("P02647", "APOA1"), ("P04114", "APOB"),
          ("P05155", "SERPING1"), ("P01023", "A2M"), ("P02790", "HPX"), ("P06727", "APOA4"), ("Q14624", "ITIH4"),
          ("P00734", "F2"), ("P02768", "ALB"), ("P0C0L4", "C4A"), ("P01024", "C3"), ("P02751", "FN1")]


def proteomics() -> Script:
    s = Script("06_plasma_proteomics_dia", "anthropic", "jsonl", seed=6, system="")
    s.must_survive = {
        "identifiers": ["P02741", "P0DJI8"],
        "errors": ["KeyError: 'Lib.PG.Q.Value'"],
        "decisions": ["MinProb", "70% valid values"],
    }
    s.user("DIA-NN 1.8.1 output for 24 plasma samples (12 sepsis, 12 age-matched controls) is at "
           "/data/proteomics/report.tsv, the design in /data/proteomics/design.csv. Quantify proteins "
           "and test sepsis vs control, adjusting for age and sex.")
    s.call("run_python", {"code": "import pandas as pd\nr = pd.read_csv('/data/proteomics/report.tsv', sep='\\t')\nprint(r.shape); print(list(r.columns))"},
           "(1184321, 36)\n['File.Name', 'Run', 'Protein.Group', 'Protein.Ids', 'Protein.Names', 'Genes', "
           "'PG.Quantity', 'PG.Normalised', 'PG.MaxLFQ', 'Genes.Quantity', 'Genes.Normalised', 'Genes.MaxLFQ', "
           "'Genes.MaxLFQ.Unique', 'Modified.Sequence', 'Stripped.Sequence', 'Precursor.Id', 'Precursor.Charge', "
           "'Q.Value', 'PEP', 'Global.Q.Value', 'Protein.Q.Value', 'PG.Q.Value', 'Global.PG.Q.Value', "
           "'GG.Q.Value', 'Translated.Q.Value', 'Proteotypic', 'Precursor.Quantity', 'Precursor.Normalised', "
           "'Label.Ratio', 'Quantity.Quality', 'RT', 'RT.Start', 'RT.Stop', 'iRT', 'Predicted.RT', 'Ms1.Area']")
    s.call("run_python", {"code": "f = r[(r['Q.Value'] <= 0.01) & (r['Lib.PG.Q.Value'] <= 0.01)]"},
           "Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.11/site-packages/pandas/core/indexes/base.py\", "
           "line 3805, in get_loc\n    return self._engine.get_loc(casted_key)\n"
           "KeyError: 'Lib.PG.Q.Value'\n\nThe above exception was the direct cause of the following exception:\n"
           "Traceback (most recent call last):\n  File \"<sandbox>\", line 1, in <module>\nKeyError: 'Lib.PG.Q.Value'",
           "Filtering precursors and protein groups at 1 % FDR.", error=True)
    s.call("run_python", {"code": "print(r.sample(200, random_state=1)[['Run','Protein.Group','Genes','Precursor.Id','Q.Value','PG.Q.Value','PG.MaxLFQ']].to_string())"},
           table(["Run", "Protein.Group", "Genes", "Precursor.Id", "Q.Value", "PG.Q.Value", "PG.MaxLFQ"],
                 [[f"PL{s.rng.randint(1, 24):02d}", acc, gene,
                   "".join(s.rng.choice("ACDEFGHIKLMNPQRSTVWY") for _ in range(s.rng.randint(7, 22))) + f"{s.rng.randint(2, 4)}",
                   f"{s.rng.uniform(0, 0.02):.5f}", f"{s.rng.uniform(0, 0.012):.5f}", f"{s.rng.uniform(1e4, 1e9):.1f}"]
                  for acc, gene in (s.rng.choice(PLASMA) for _ in range(200))]),
           "Before filtering, a look at the precursor rows.")
    s.say("Lib.PG.Q.Value only exists when DIA-NN runs with a spectral library in MBR mode; this report has "
          "PG.Q.Value and Global.PG.Q.Value instead. The fix: filter on Q.Value <= 0.01, PG.Q.Value <= 0.01 "
          "and Global.PG.Q.Value <= 0.01 (run-specific and global protein FDR).")
    per_run = table(["run", "group", "precursors", "protein_groups", "median_CV"],
                    [[f"PL{n:02d}", "sepsis" if n <= 12 else "control", s.rng.randint(5800, 9100), s.rng.randint(480, 720),
                      f"{s.rng.uniform(0.08, 0.19):.2f}"] for n in range(1, 25)])
    s.call("run_python", {"code": "f = r[(r['Q.Value']<=0.01)&(r['PG.Q.Value']<=0.01)&(r['Global.PG.Q.Value']<=0.01)]\nprint(per_run_summary(f))"},
           per_run + "\n\n612 protein groups quantified in at least one run (MaxLFQ, Genes.MaxLFQ.Unique).")
    s.say("We decided to keep protein groups with at least 70% valid values in at least one group "
          "(sepsis or control), log2-transform MaxLFQ intensities, and impute the remaining missing "
          "values with MinProb (downshift 1.8 SD, width 0.3), since missingness in plasma DIA is mostly "
          "below the detection limit (missing not at random). 438 protein groups pass the filter.")
    rows = [[acc, gene, f"{s.rng.uniform(0.8, 4.5) * (1 if gene in ('CRP', 'SAA1', 'ORM1', 'LBP', 'CD14', 'HP', 'SERPINA1', 'ITIH4') else -1):.2f}",
             f"{10 ** -s.rng.uniform(3, 14):.2e}", f"{10 ** -s.rng.uniform(2, 12):.2e}"] for acc, gene in PLASMA]
    rows += [[f"{s.rng.choice('OPQ')}{s.rng.randint(0, 9)}{''.join(s.rng.choice('ABCDEFGHJKLMNPQRSTVWXYZ0123456789') for _ in range(3))}{s.rng.randint(0, 9)}",
              "", f"{s.rng.uniform(-1.5, 1.5):.2f}", f"{s.rng.uniform(0.0001, 0.9):.2e}", f"{s.rng.uniform(0.01, 1):.2e}"]
             for _ in range(160)]
    s.call("run_r", {"code": "design <- model.matrix(~ group + age + sex, d)\nfit <- eBayes(lmFit(x, design))\n"
                             "topTable(fit, coef='groupsepsis', number=Inf, sort.by='P')"},
           table(["UniProt", "Gene", "logFC", "P.Value", "adj.P.Val"], rows), "limma with age and sex as covariates.")
    s.say("Acute-phase proteins dominate: SAA1 (P0DJI8), CRP (P02741), LBP and ORM1 are up in sepsis; "
          "transferrin, APOA1 and albumin are down, the classic negative acute-phase response. 71 protein "
          "groups at adj.P.Val < 0.05.")
    s.user("Could the plasma depletion or haemolysis confound this?")
    s.say("Haemolysis would raise HBA1/HBB, CA1 and PRDX2; their levels are similar between groups "
          "(quality marker panel from Geyer et al. 2019), so haemolysis is unlikely to explain the result. "
          "Open question: were samples from sepsis patients collected before antibiotics? Timing could "
          "change the acute-phase levels.")
    s.user("Unknown for now. Summarise.")
    s.say("Final summary: DIA-NN 1.8.1, 24 runs, precursor and protein FDR 1 % (Q.Value, PG.Q.Value, "
          "Global.PG.Q.Value), MaxLFQ, 70 % valid values in one group, MinProb imputation, limma with age "
          "and sex: 71 differential protein groups (adj.P.Val < 0.05), led by SAA1, CRP, LBP. Output: "
          "/results/proteomics/limma_sepsis_vs_control.tsv.")
    return s


# =============================================================================================
# 7. 10x Multiome doublets (OpenAI, JSON array)
# =============================================================================================


def multiome_doublets() -> Script:
    s = Script("07_multiome_doublets", "openai", "array", seed=7, system=(
        "You are a single-cell multi-omics agent (R 4.4 with ArchR 1.0.2, Seurat 5, Signac, scDblFinder "
        "1.18; Python with muon). Explain decisions with numbers."))
    s.must_survive = {
        "identifiers": ["GSE194122"],
        "errors": ["Killed", "0 of 11,204 RNA barcodes found in the ArchR project"],
        "decisions": ["union of the RNA (scDblFinder) and ATAC (ArchR) doublet calls"],
    }
    s.user("10x Multiome (gene expression + ATAC) of human bone marrow mononuclear cells, 4 samples "
           "(from GSE194122), Cell Ranger ARC outputs under /data/multiome/<sample>/outs/. Remove doublets "
           "before joint clustering, and tell me how many barcodes you removed.")
    s.call("bash", {"command": "for s in s1d1 s1d2 s2d1 s3d6; do cat /data/multiome/$s/outs/summary.csv | cut -d, -f1-12; done"},
           table(["Sample ID", "Estimated number of cells", "ATAC Median high-quality fragments per cell",
                  "GEX Median genes per cell", "GEX Median UMI counts per cell", "ATAC TSS enrichment score",
                  "ATAC Fraction of high-quality fragments in cells"],
                 [[x, s.rng.randint(9000, 13000), s.rng.randint(8000, 21000), s.rng.randint(1300, 2600),
                   s.rng.randint(2800, 6200), f"{s.rng.uniform(8, 14):.2f}", f"{s.rng.uniform(0.55, 0.81):.3f}"]
                  for x in ("s1d1", "s1d2", "s2d1", "s3d6")], sep=","))
    s.call("run_r", {"code": "library(ArchR)\naddArchRThreads(threads = 32)\narrows <- createArrowFiles(inputFiles = frags, sampleNames = names(frags), minTSS = 4, minFrags = 1000, addTileMat = TRUE, addGeneScoreMat = TRUE)"},
           "Using GeneAnnotation set by addArchRGenome(Hg38)!\nUsing GeneAnnotation set by addArchRGenome(Hg38)!\n"
           "ArchR logging to : ArchRLogs/ArchR-createArrows-1a2b3c.log\n(s1d1 : 1 of 4) Reading In Fragments from inputFiles (readMethod = tabix)\n"
           "(s1d1 : 1 of 4) Tabix Bed To Temporary File\n(s2d1 : 3 of 4) Tabix Bed To Temporary File\n"
           "Error in mcmapply: Killed\n/bin/bash: line 1: 41123 Killed                  Rscript arrows.R\n"
           "dmesg: Out of memory: Killed process 41123 (R) total-vm:187213452kB, anon-rss:126101232kB",
           "Building Arrow files (tiles, gene scores) for the four samples.")
    s.say("The R process was killed by the kernel's OOM killer: 32 threads each read a fragment file into "
          "memory (126 GB resident on a 128 GB node). Fix: addArchRThreads(threads = 4) and "
          "subThreading = FALSE in createArrowFiles; it is slower but memory stays below 40 GB.")
    s.call("run_r", {"code": "addArchRThreads(threads = 4)\narrows <- createArrowFiles(..., subThreading = FALSE)\n"
                             "doubScores <- addDoubletScores(arrows, k = 10, knnMethod = 'UMAP', LSIMethod = 1)"},
           "\n".join([f"(s{n} : {n} of 4) Computing doublet scores: UMAP projection R^2 = {s.rng.uniform(0.93, 0.99):.4f}"
                      for n in range(1, 5)] + [f"ArchR: {x} doublet enrichment > 1: {s.rng.randint(600, 1200)} cells"
                                               for x in ("s1d1", "s1d2", "s2d1", "s3d6")]))
    s.call("run_r", {"code": "print(head(as.data.frame(getCellColData(proj, c('Sample','TSSEnrichment','nFrags','DoubletScore','DoubletEnrichment'))), 300))"},
           table(["cell", "Sample", "TSSEnrichment", "nFrags", "DoubletScore", "DoubletEnrichment"],
                 [[f"{x}#{barcode(s.rng)}", x, f"{s.rng.uniform(4, 25):.3f}", s.rng.randint(1000, 90000),
                   f"{s.rng.uniform(0, 60):.3f}", f"{s.rng.uniform(0.2, 6):.3f}"]
                  for x in (s.rng.choice(("s1d1", "s1d2", "s2d1", "s3d6")) for _ in range(300))]),
           "Per-cell ATAC doublet scores.")
    s.call("run_r", {"code": "sce <- scDblFinder(sce_rna, samples = 'sample', dbr = NULL)\ntable(sce$sample, sce$scDblFinder.class)"},
           table(["sample", "singlet", "doublet", "doublet_rate"],
                 [[x, s.rng.randint(8800, 11200), s.rng.randint(500, 1000), f"{s.rng.uniform(5.5, 8.6):.1f}%"]
                  for x in ("s1d1", "s1d2", "s2d1", "s3d6")]), "RNA doublets with scDblFinder, per sample.")
    s.call("run_r", {"code": "atac_dbl <- getCellColData(proj, c('DoubletEnrichment'))\n"
                             "both <- intersect(colnames(sce), rownames(atac_dbl))\nlength(both)"},
           "[1] 0\nError in combine_calls(sce, atac_dbl): 0 of 11,204 RNA barcodes found in the ArchR project "
           "(example RNA: AAACAGCCAAACAACA-1; example ArchR: s1d1#AAACAGCCAAACAACA-1)", error=True)
    s.call("run_r", {"code": "print(head(colData(sce)[, c('sample','scDblFinder.score','scDblFinder.class','nFeature')], 250))"},
           table(["barcode", "sample", "scDblFinder.score", "scDblFinder.class", "nFeature"],
                 [[barcode(s.rng), x, f"{sc:.4f}", "doublet" if sc > 0.62 else "singlet", s.rng.randint(400, 6000)]
                  for x, sc in ((s.rng.choice(("s1d1", "s1d2", "s2d1", "s3d6")), s.rng.uniform(0, 1)) for _ in range(250))]),
           "The RNA calls per barcode, to see the naming.")
    s.say("The barcodes differ only in naming: ArchR prefixes the sample and '#'. The fix is to build ArchR-style "
          "names for the RNA cells: paste0(sce$sample, '#', colnames(sce)).")
    s.call("run_r", {"code": "colnames(sce) <- paste0(sce$sample, '#', colnames(sce))\ncombined <- combine_calls(sce, atac_dbl)\nprint(combined)"},
           table(["sample", "barcodes", "rna_doublets", "atac_doublets", "both", "union", "union_rate"],
                 [[x, b, r, a, int(min(r, a) * 0.35), r + a - int(min(r, a) * 0.35),
                   f"{100 * (r + a - int(min(r, a) * 0.35)) / b:.1f}%"]
                  for x in ("s1d1", "s1d2", "s2d1", "s3d6")
                  for b, r, a in [(s.rng.randint(9500, 12500), s.rng.randint(520, 800), s.rng.randint(380, 620))]]))
    s.say("Only about a third of doublets are called by both modalities: RNA catches heterotypic doublets "
          "between transcriptionally distinct types, ATAC catches those with more fragments and ambiguous "
          "chromatin. We decided to remove the union of the RNA (scDblFinder) and ATAC (ArchR) doublet calls, "
          "called per sample before merging. That removes 9.5 % of barcodes overall.")
    s.call("run_r", {"code": "print(as.data.frame(table(cluster = sce$cluster_rna, sample = sce$sample, call = sce$doublet_call)))"},
           table(["cluster", "sample", "call", "Freq"],
                 [[f"R{c}", x, call, s.rng.randint(0, 900)] for c in range(1, 26) for x in ("s1d1", "s1d2", "s2d1", "s3d6")
                  for call in ("singlet", "rna_only", "atac_only", "both")]),
           "Where the removed barcodes sit, per RNA cluster and sample.")
    clusters = table(["cluster", "n_cells", "top_genes", "top_motifs"],
                     [[f"C{n}", s.rng.randint(300, 6000),
                       ",".join(s.rng.sample(["CD34", "MPO", "ELANE", "CD14", "LYZ", "CD3E", "CD8A", "MS4A1", "HBB", "GATA1",
                                              "PF4", "IRF8", "CEBPA", "SPI1", "PAX5", "EBF1", "KLF1", "TAL1", "GZMB", "NKG7"], 4)),
                       ",".join(s.rng.sample(["CEBPA", "SPI1", "GATA1", "PAX5", "EBF1", "TBX21", "RUNX1", "KLF1", "IRF8", "TCF7"], 3))]
                      for n in range(1, 23)])
    s.call("run_r", {"code": "proj <- proj[!proj$doublet_union]\nproj <- addIterativeLSI(proj); proj <- addClusters(proj, resolution = 0.8)\nsummarise_clusters(proj)"},
           clusters, "Joint clustering after doublet removal.")
    s.user("Is 9.5 % too aggressive?")
    s.say("The 10x expected multiplet rate at ~10,000 recovered nuclei is about 7.6–8 %, and the union "
          "includes homotypic calls that are hard to see in one modality; 9.5 % is within the range "
          "reported for multiome (Germain et al. 2021 for scDblFinder). Open question: should we keep "
          "cells flagged only by ATAC in the erythroid cluster, where fragments per cell are low?")
    s.user("Keep them removed. Final summary please.")
    s.say("Final summary: 4 BMMC multiome samples (GSE194122); ArchR Arrow files with 4 threads after an "
          "OOM; doublets per sample with scDblFinder (RNA) and ArchR (ATAC), union removed (9.5 % of "
          "barcodes); 22 joint clusters. Project: /results/multiome/ArchRProject_nodoublets/.")
    return s


# =============================================================================================
# 8. GWAS fine-mapping (Anthropic, object with system)
# =============================================================================================


def gwas_finemap() -> Script:
    s = Script("08_gwas_finemapping_t2d", "anthropic", "object", seed=8, system=(
        "You are a statistical genetics agent with R 4.4 (susieR 0.12.35, coloc 5.2.3), PLINK 2.0 and "
        "bcftools. Positions are GRCh37 unless stated. Check allele alignment before any fine-mapping."))
    s.must_survive = {
        "identifiers": ["rs7903146", "GCST006867"],
        "errors": ["Input R matrix contains NA values"],
        "decisions": ["drop palindromic variants with MAF > 0.4", "L = 10"],
    }
    s.user("Fine-map the type 2 diabetes loci at TCF7L2 and SLC30A8 from the DIAGRAM 2018 European "
           "meta-analysis (Mahajan et al., GWAS Catalog GCST006867, n = 898,130), summary statistics in "
           "/data/gwas/Mahajan.NatGenet2018b.T2D.European.txt.gz, with SuSiE and UK Biobank LD "
           "(/data/ld/ukbb_chr10.bcor, /data/ld/ukbb_chr8.bcor).")
    head = table(["SNP", "Chr", "Pos", "EA", "NEA", "EAF", "Beta", "SE", "Pvalue", "Neff"],
                 [["rs7903146", 10, 114758349, "T", "C", "0.292", "0.3220", "0.0046", "1.3e-1097", 231420]]
                 + [[f"rs{s.rng.randint(1_000_000, 99_999_999)}", 10, s.rng.randint(114_500_000, 115_000_000),
                     s.rng.choice("ACGT"), s.rng.choice("ACGT"), f"{s.rng.uniform(0.01, 0.99):.3f}",
                     f"{s.rng.uniform(-0.2, 0.3):.4f}", f"{s.rng.uniform(0.004, 0.03):.4f}",
                     f"{10 ** -s.rng.uniform(0, 300):.2e}", s.rng.randint(150000, 231420)] for _ in range(150)])
    s.call("bash", {"command": "zcat /data/gwas/Mahajan.NatGenet2018b.T2D.European.txt.gz | awk '$2==10 && $3>114500000 && $3<115000000' | sort -g -k9 | head -151"},
           head, "Extracting the TCF7L2 region (chr10:114.5–115.0 Mb, GRCh37).")
    s.call("run_r", {"code": "print(round(R[1:24, 1:12], 3))"},
           "\n".join("\t".join(f"{s.rng.uniform(-1, 1):.3f}" for _ in range(12)) for _ in range(24)),
           "A corner of the LD matrix.")
    s.call("run_r", {"code": "library(susieR)\nR <- read_bcor('/data/ld/ukbb_chr10.bcor', region)\n"
                             "fit <- susie_rss(z = z, R = R, n = 898130, L = 10)"},
           "Reading 1,523 variants from /data/ld/ukbb_chr10.bcor\n"
           "Error in susie_rss(z = z, R = R, n = 898130, L = 10) : \n  Input R matrix contains NA values",
           error=True)
    s.say("The LD matrix has NA rows for 25 variants that are in the GWAS but not in the UK Biobank "
          "imputed panel. The fix is to restrict both z and R to the 1,498 variants present in both and "
          "to check allele alignment between the GWAS effect allele and the LD reference allele.")
    flips = table(["SNP", "gwas_EA", "ld_A1", "z", "kriging_z", "logLR", "action"],
                  [[f"rs{s.rng.randint(1_000_000, 99_999_999)}", a, b, f"{s.rng.uniform(-9, 9):.2f}",
                    f"{s.rng.uniform(-9, 9):.2f}", f"{s.rng.uniform(2, 12):.2f}", "flip"]
                   for a, b in [(s.rng.choice("ACGT"), s.rng.choice("ACGT")) for _ in range(37)]])
    s.call("run_r", {"code": "keep <- intersect(gwas$SNP, colnames(R))\ncondz <- kriging_rss(z[keep], R[keep, keep], n = 898130)\nflagged(condz)"},
           "37 variants with large |z - kriging_z| and logLR > 2, consistent with allele flips:\n" + flips)
    s.say("We decided to harmonise all alleles to the LD reference A1, flip the 37 variants whose "
          "conditional z-scores indicate a strand or allele swap, and drop palindromic variants with MAF > 0.4 "
          "(A/T, C/G) whose strand cannot be resolved. We keep L = 10 single effects and "
          "estimate_residual_variance = FALSE, as recommended for summary statistics with out-of-sample LD.")
    cs = table(["cs", "variant", "PIP", "z", "nearest_gene", "annotation"],
               [["L1", "rs7903146", "0.998", "70.1", "TCF7L2", "intron 3; islet ATAC peak"],
                ["L2", "rs34855922", "0.412", "9.8", "TCF7L2", "intron 4"],
                ["L2", "rs35198068", "0.388", "9.7", "TCF7L2", "intron 4"],
                ["L3", "rs12243326", "0.63", "7.9", "TCF7L2", "intron 4"]]
               + [[f"L{n}", f"rs{s.rng.randint(1_000_000, 99_999_999)}", f"{s.rng.uniform(0.001, 0.05):.3f}",
                   f"{s.rng.uniform(-3, 3):.1f}", "", ""] for n in range(4, 11) for _ in range(12)])
    s.call("run_r", {"code": "fit <- susie_rss(z = zh, R = Rh, n = 898130, L = 10, estimate_residual_variance = FALSE)\nsummary(fit)$cs; top_pips(fit, 90)"},
           "3 credible sets (95%), purity min |r| > 0.5\n" + cs)
    s.call("run_r", {"code": "# same pipeline for SLC30A8, chr8:118.0-118.4 Mb\nfit8 <- run_locus('chr8', 118.0e6, 118.4e6)"},
           "Reading 1,102 variants from /data/ld/ukbb_chr8.bcor; 19 missing from LD panel removed; 12 allele flips fixed\n"
           + table(["cs", "variant", "PIP", "z", "gene", "consequence"],
                   [["L1", "rs13266634", "0.71", "-16.2", "SLC30A8", "missense p.Arg325Trp (c.973C>T)"],
                    ["L1", "rs3802177", "0.27", "-16.0", "SLC30A8", "3' UTR"],
                    ["L2", "rs200185429", "0.94", "-6.1", "SLC30A8", "stop_gained p.Arg138Ter (protective)"]]))
    s.user("How confident are we that rs7903146 is causal?")
    s.say("Very: a single-variant credible set with PIP 0.998, and rs7903146 sits in an islet-specific "
          "open chromatin region with allelic enhancer activity reported in beta-cell lines. Open "
          "question: should we run coloc with InsPIRE islet eQTLs to test whether the SLC30A8 signal "
          "acts through expression as well as through the Arg325Trp missense change?")
    s.user("Yes, but next session. Summarise now.")
    s.say("Final summary: DIAGRAM 2018 (GCST006867), SuSiE RSS with UK Biobank LD, alleles harmonised "
          "(37 flips at TCF7L2, 12 at SLC30A8), palindromic MAF > 0.4 dropped, L = 10. TCF7L2: rs7903146 "
          "PIP 0.998 plus two secondary sets; SLC30A8: rs13266634 (p.Arg325Trp) PIP 0.71 and protective "
          "rs200185429 PIP 0.94. Results: /results/finemap/TCF7L2_susie.rds, /results/finemap/SLC30A8_susie.rds.")
    return s


# =============================================================================================
# 9. Spatial transcriptomics (OpenAI, JSON Lines)
# =============================================================================================

LAYER_MARKERS = {"L1": ["RELN", "AQP4", "GFAP"], "L2/3": ["CUX2", "HPCAL1", "LAMP5"], "L4": ["RORB", "NEFH"],
                 "L5": ["PCP4", "FEZF2", "BCL11B"], "L6": ["NR4A2", "TLE4", "SEMA3E"], "WM": ["MBP", "MOBP", "PLP1"]}


def spatial_visium() -> Script:
    s = Script("09_spatial_visium_dlpfc", "openai", "jsonl", seed=9, system=(
        "You are a spatial transcriptomics agent (scanpy 1.10, squidpy 1.4, cell2location 0.1.3 on one "
        "A100 40 GB). Report spot counts and thresholds."))
    s.must_survive = {
        "identifiers": ["GSE144136"],
        "errors": ["tissue_positions_list.csv", "CUDA out of memory"],
        "decisions": ["N_cells_per_location=8", "detection_alpha=20"],
    }
    s.user("Visium data of human dorsolateral prefrontal cortex (spatialLIBD sample 151673), Space Ranger "
           "2.1 output in /data/visium/151673/outs/. Find cortical layers and spatially variable genes, "
           "and deconvolve cell types with the snRNA-seq reference from GSE144136.")
    s.call("run_python", {"code": "import scanpy as sc\nad = sc.read_visium('/data/visium/151673/outs')"},
           "Traceback (most recent call last):\n  File \"<sandbox>\", line 2, in <module>\n"
           "  File \"/opt/conda/lib/python3.11/site-packages/scanpy/readwrite.py\", line 409, in read_visium\n"
           "    positions = pd.read_csv(files['tissue_positions_file'], header=None)\n"
           "FileNotFoundError: [Errno 2] No such file or directory: "
           "'/data/visium/151673/outs/spatial/tissue_positions_list.csv'")
    s.say("Space Ranger 2.0 and later write spatial/tissue_positions.csv (with a header row) instead of "
          "tissue_positions_list.csv, and this scanpy version still looks for the old name. Fix: use "
          "squidpy.read.visium, which handles both, rather than renaming files in the raw output.")
    s.call("run_python", {"code": "import squidpy as sq\nad = sq.read.visium('/data/visium/151673/outs')\nad.var_names_make_unique()\nprint(ad)"},
           "AnnData object with n_obs × n_vars = 3639 × 33538\n    obs: 'in_tissue', 'array_row', 'array_col'\n"
           "    var: 'gene_ids', 'feature_types', 'genome'\n    uns: 'spatial'\n    obsm: 'spatial'")
    spots = table(["array_row", "array_col", "in_tissue", "total_counts", "n_genes", "pct_mt"],
                  [[s.rng.randint(0, 77), s.rng.randint(0, 127), 1, s.rng.randint(400, 12000), s.rng.randint(300, 4500),
                    f"{s.rng.uniform(1, 24):.1f}"] for _ in range(160)])
    s.call("run_python", {"code": "sc.pp.calculate_qc_metrics(ad, qc_vars=['mt'], inplace=True)\nprint(ad.obs.sample(160, random_state=0))"},
           spots, "Spot-level QC.")
    s.say("We decided to keep spots with at least 500 UMIs and fewer than 20 % mitochondrial counts "
          "(removes 71 spots, mostly at the tissue edge), and to keep all genes detected in at least 10 spots.")
    svg = table(["gene", "moran_I", "pval_norm_fdr_bh"],
                [[g, f"{s.rng.uniform(0.35, 0.82):.3f}", f"{10 ** -s.rng.uniform(50, 300):.1e}"]
                 for genes in LAYER_MARKERS.values() for g in genes]
                + [[g, f"{s.rng.uniform(0.05, 0.35):.3f}", f"{10 ** -s.rng.uniform(2, 50):.1e}"] for g in FILLER_GENES[:120]])
    s.call("run_python", {"code": "sq.gr.spatial_neighbors(ad)\nsq.gr.spatial_autocorr(ad, mode='moran', n_perms=100)\nprint(ad.uns['moranI'].head(137))"},
           svg, "Spatially variable genes (Moran's I).")
    s.say("The top spatially variable genes are layer markers: MOBP/MBP/PLP1 (white matter), PCP4 (L5), "
          "CUX2 (L2/3), RORB (L4), NR4A2 (L6) and RELN (L1).")
    s.call("run_python", {"code": "from cell2location.models import Cell2location\nCell2location.setup_anndata(ad)\n"
                                  "mod = Cell2location(ad, cell_state_df=inf_aver, N_cells_per_location=8, detection_alpha=20)\n"
                                  "mod.train(max_epochs=30000, batch_size=None, train_size=1)"},
           "GPU available: True (cuda), used: True\nLOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]\n"
           "Epoch 1/30000:   0%|          | 0/30000 [00:00<?, ?it/s]\n"
           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB (GPU 0; 39.39 GiB total "
           "capacity; 36.02 GiB already allocated; 1.91 GiB free; 36.40 GiB reserved in total by PyTorch)",
           "Training cell2location with the reference signatures (inf_aver, 29 cell types from GSE144136).")
    s.say("Full-batch training does not fit in 40 GB because the reference has 33k genes. Fix: restrict "
          "to the 12,000 genes shared with the reference after filtering, and train with batch_size=2500. "
          "We keep N_cells_per_location=8 (cortex spot density from the histology) and detection_alpha=20 "
          "(recommended for data with strong technical variability between spots).")
    abund = table(["layer", "Ex_L2_3", "Ex_L4", "Ex_L5", "Ex_L6", "Oligo", "Astro", "Micro", "OPC"],
                  [[layer] + [f"{s.rng.uniform(0, 4):.2f}" for _ in range(8)] for layer in LAYER_MARKERS])
    s.call("run_python", {"code": "mod.train(max_epochs=30000, batch_size=2500, train_size=1)\nprint(mean_abundance_by_layer(ad))"},
           "\n".join(f"Epoch {e}/30000: elbo_train={s.rng.uniform(1.1e7, 3e7):.3e}" for e in range(1000, 30001, 1000))
           + "\n\n" + abund)
    s.call("run_python", {"code": "print(ad.obsm['q05_cell_abundance_w_sf'].sample(200, random_state=0).round(2).to_string())"},
           table(["spot", "Ex_L2_3", "Ex_L4", "Ex_L5", "Ex_L6", "Inh_PVALB", "Inh_SST", "Oligo", "Astro", "Micro", "OPC"],
                 [[barcode(s.rng)] + [f"{s.rng.uniform(0, 5):.2f}" for _ in range(10)] for _ in range(200)]),
           "Per-spot abundances (5 % quantile of the posterior).")
    s.user("Do the excitatory neuron types map to the right layers?")
    s.say("Yes: Ex_L2_3 is highest in the CUX2-rich layer, Ex_L5 in the PCP4 layer, Ex_L6 deepest, and "
          "oligodendrocytes in the MOBP white matter. Open question: should we compare with the manual "
          "spatialLIBD layer annotation (adjusted Rand index) for 151673?")
    s.user("Yes, later. Summarise.")
    s.say("Final summary: 151673, 3,568 spots after QC (>= 500 UMIs, < 20 % mito); squidpy reader; "
          "Moran's I SVGs recover layer markers; cell2location (N_cells_per_location=8, detection_alpha=20, "
          "batch_size=2500) maps excitatory subtypes to the expected layers. Output: /results/visium/151673_c2l.h5ad.")
    return s


# =============================================================================================
# 10. Shotgun metagenomics (OpenAI, object with messages)
# =============================================================================================

TAXA = [("Faecalibacterium prausnitzii", "853", -1.8), ("Roseburia intestinalis", "166486", -1.3),
        ("Eubacterium rectale", "39491", -1.1), ("Escherichia coli", "562", 2.1),
        ("Ruminococcus gnavus", "33038", 2.4), ("Klebsiella pneumoniae", "573", 1.7),
        ("Bacteroides fragilis", "817", 0.9), ("Akkermansia muciniphila", "239935", -0.8),
        ("Bifidobacterium adolescentis", "1680", -0.9), ("Enterococcus faecium", "1352", 1.5)]


def metagenomics() -> Script:
    s = Script("10_metagenomics_ibd", "openai", "object", seed=10, system=(
        "You are a microbiome analysis agent (KneadData 0.12, Kraken2 2.1.3, Bracken 2.9, HUMAnN 3.8, "
        "R with ANCOMBC 2.6). Report read counts after each step."))
    s.must_survive = {
        "identifiers": ["PRJNA398089"],
        "errors": ["does not contain necessary file taxo.k2d"],
        "decisions": ["ANCOM-BC2", "prevalence of at least 10%"],
    }
    s.user("Shotgun stool metagenomes from 40 IBD patients (24 Crohn's disease, 16 ulcerative colitis) "
           "and 20 controls, a subset of BioProject PRJNA398089 (HMP2 IBDMDB), FASTQs in /data/meta/fastq/. "
           "Produce taxonomic and functional profiles and test which species differ in IBD.")
    kd = table(["sample", "raw_pairs", "trimmed", "decontaminated_human", "final_pairs"],
               [[f"CSM{n:04d}", r, int(r * 0.96), int(r * s.rng.uniform(0.01, 0.2)), int(r * s.rng.uniform(0.75, 0.93))]
                for n in range(1, 61) for r in [s.rng.randint(8_000_000, 30_000_000)]])
    s.call("bash", {"command": "for s in $(cat samples.txt); do kneaddata --input1 fastq/${s}_R1.fastq.gz --input2 fastq/${s}_R2.fastq.gz -db /db/hg37dec_v0.1 -o kd/ -t 16; done; kneaddata_read_count_table --input kd/ --output kd/counts.tsv; cat kd/counts.tsv"}, kd,
           "Host removal and quality trimming with KneadData.")
    s.call("bash", {"command": "kraken2 --db /db/k2_standard --threads 16 --paired --report k2/CSM0001.report kd/CSM0001_paired_1.fastq kd/CSM0001_paired_2.fastq > /dev/null"},
           "kraken2: database (\"/db/k2_standard\") does not contain necessary file taxo.k2d", error=True)
    s.call("bash", {"command": "ls /db/"}, "hg37dec_v0.1\nk2_standard_20240112\nhumann_dbs\nmetaphlan_db")
    s.say("The database folder name includes its build date: /db/k2_standard_20240112 holds hash.k2d, "
          "opts.k2d and taxo.k2d. The fix is to point --db at /db/k2_standard_20240112.")
    s.call("bash", {"command": "for s in ...; do kraken2 --db /db/k2_standard_20240112 ... ; done && "
                               "bracken -d /db/k2_standard_20240112 -i k2/CSM0001.report -o br/CSM0001.tsv -r 150 -l S"},
           "\n".join(f"{n:>10} sequences ({s.rng.uniform(800, 3000):.2f} Mbp) processed in {s.rng.uniform(20, 90):.3f}s\n"
                     f"  {s.rng.randint(5_000_000, 20_000_000)} sequences classified ({s.rng.uniform(55, 82):.2f}%)"
                     for n in range(1, 61))
           + "\n\nbracken: Error: kmer distribution file /db/k2_standard_20240112/database150mers.kmer_distrib does not exist")
    s.say("Bracken needs a k-mer distribution for the read length; the database ships database100mers, "
          "database200mers and database250mers only. Our reads are 2x150 bp after trimming (mostly 140–150 bp). "
          "We decided to use -r 100: reads longer than the distribution length are fine, the re-estimation "
          "uses the first 100 bp k-mer profile, and building a 150-mer distribution would take a day.")
    sp = table(["name", "taxonomy_id", "mean_rel_abundance_IBD", "mean_rel_abundance_ctrl", "prevalence"],
               [[n, t, f"{s.rng.uniform(0.1, 9):.2f}%", f"{s.rng.uniform(0.1, 9):.2f}%", f"{s.rng.uniform(0.3, 1):.2f}"] for n, t, _ in TAXA]
               + [[f"{s.rng.choice(GENERA)} {s.rng.choice(EPITHETS)}",
                   s.rng.randint(1000, 2_000_000), f"{s.rng.uniform(0.001, 2):.3f}%", f"{s.rng.uniform(0.001, 2):.3f}%",
                   f"{s.rng.uniform(0.02, 1):.2f}"] for n in range(150)])
    s.call("bash", {"command": "for s in ...; do bracken -d /db/k2_standard_20240112 -i k2/$s.report -o br/$s.tsv -r 100 -l S; done; "
                               "combine_bracken_outputs.py --files br/*.tsv -o br/all.tsv; python summarise.py br/all.tsv | head -161"}, sp)
    s.say("We will use ANCOM-BC2 for differential abundance (it corrects for sample-specific sampling "
          "fractions and handles structural zeros), with diagnosis as the fixed effect and age, sex and "
          "antibiotic use in the last 3 months as covariates, keeping species with a prevalence of at least 10% "
          "and using BH-adjusted q < 0.05.")
    res = table(["taxon", "ncbi_taxon", "lfc_IBD", "se", "q_val", "passed_ss"],
                [[n, f"NCBITaxon:{t}", f"{lfc + s.rng.uniform(-0.2, 0.2):.2f}", f"{s.rng.uniform(0.2, 0.5):.2f}",
                  f"{10 ** -s.rng.uniform(2, 6):.1e}", "TRUE"] for n, t, lfc in TAXA]
                + [[f"{s.rng.choice(GENERA)} {s.rng.choice(EPITHETS)}", f"NCBITaxon:{s.rng.randint(1000, 2_000_000)}", f"{s.rng.uniform(-1, 1):.2f}",
                    f"{s.rng.uniform(0.2, 0.9):.2f}", f"{s.rng.uniform(0.05, 1):.2f}", "TRUE"] for n in range(80)])
    s.call("run_r", {"code": "out <- ancombc2(data = tse, assay_name = 'counts', tax_level = 'Species', fix_formula = 'diagnosis + age + sex + abx', "
                             "p_adj_method = 'BH', prv_cut = 0.10, group = 'diagnosis', struc_zero = TRUE)\nhead(out$res, 90)"}, res)
    paths = table(["pathway", "lfc_IBD", "q_val"],
                  [["PWY-5100: pyruvate fermentation to acetate and lactate II", "-0.61", "0.003"],
                   ["P108-PWY: pyruvate fermentation to propanoate I", "-0.55", "0.008"],
                   ["PWY-5022: 4-aminobutanoate degradation V", "-0.72", "0.001"],
                   ["ENTBACSYN-PWY: enterobactin biosynthesis", "1.31", "0.0004"],
                   ["PWY0-1338: polymyxin resistance", "1.02", "0.002"]]
                  + [[f"PWY-{s.rng.randint(1000, 8000)}", f"{s.rng.uniform(-1, 1):.2f}",
                      f"{s.rng.uniform(0.01, 1):.3f}"] for n in range(90)])
    s.call("bash", {"command": "humann --input kd/CSM0001.fastq --output humann/ --threads 16 ...; humann_join_tables ...; Rscript maaslin_paths.R"},
           paths, "Functional profiles (HUMAnN 3, MetaCyc pathways), tested with MaAsLin2 on relative abundances.")
    s.user("What is the biological story?")
    s.say("Butyrate producers (Faecalibacterium prausnitzii, NCBITaxon:853; Roseburia intestinalis; "
          "Eubacterium rectale) are depleted in IBD, while Escherichia coli, Ruminococcus gnavus and "
          "Klebsiella pneumoniae are enriched, with matching shifts in short-chain fatty acid fermentation "
          "pathways and enterobactin biosynthesis. Open question: should we separate Crohn's disease "
          "from ulcerative colitis, given the known stronger dysbiosis in ileal CD?")
    s.user("Later. Summarise.")
    s.say("Final summary: 60 stool metagenomes (PRJNA398089 subset), KneadData host removal, Kraken2 with "
          "/db/k2_standard_20240112, Bracken -r 100 at species level, ANCOM-BC2 (age, sex, antibiotics; "
          "prevalence 10 %; q < 0.05): F. prausnitzii, R. intestinalis, E. rectale down; E. coli, "
          "R. gnavus, K. pneumoniae up. Tables: /results/meta/ancombc2_species.tsv, /results/meta/maaslin2_pathways.tsv.")
    return s


# =============================================================================================
# 11. ChIP-seq differential binding (Anthropic, JSON array)
# =============================================================================================


def chipseq_esr1() -> Script:
    s = Script("11_chipseq_esr1_diffbind", "anthropic", "array", seed=11, system="")
    s.must_survive = {
        "identifiers": ["GSE32222", "GREB1"],
        "errors": ["Unable to open BAM file"],
        "decisions": ["DBA_NORM_RLE"],
    }
    s.user("ESR1 (ERα) ChIP-seq in MCF-7 cells, 45 min 10 nM estradiol (E2) versus vehicle, 3 replicates, "
           "with inputs; reads from GSE32222 re-aligned to hg38 in /data/chip/bam/. Call peaks and find "
           "E2-induced binding sites, then check the motif.")
    s.call("bash", {"command": "for s in veh_1 veh_2 veh_3 e2_1 e2_2 e2_3; do macs2 callpeak -t bam/ESR1_$s.bam -c bam/input_$s.bam -f BAM -g hs -q 0.01 -n $s --outdir peaks; done; wc -l peaks/*_peaks.narrowPeak"},
           "\n".join(f"{s.rng.randint(3_000, 45_000):>7} peaks/{x}_peaks.narrowPeak"
                     for x in ("veh_1", "veh_2", "veh_3", "e2_1", "e2_2", "e2_3"))
           + "\n" + "\n".join(f"INFO  @ Tue, 03 Sep 2024 14:{m:02d}:11: #1 tag size = 50.0; total tags in treatment: "
                              f"{s.rng.randint(18_000_000, 32_000_000)}; fragment size d = {s.rng.randint(180, 260)}"
                              for m in range(30)))
    s.call("bash", {"command": "sort -k9,9gr peaks/e2_1_peaks.narrowPeak | head -200"},
           table(["chrom", "start", "end", "name", "score", "strand", "fc", "-log10p", "-log10q", "summit"],
                 [[f"chr{c}", p, p + w, f"e2_1_peak_{n}", s.rng.randint(50, 3000), ".", f"{s.rng.uniform(3, 80):.3f}",
                   f"{s.rng.uniform(10, 300):.3f}", f"{s.rng.uniform(8, 290):.3f}", s.rng.randint(50, w)]
                  for n, c, p, w in ((n, s.rng.randint(1, 22), s.rng.randint(1_000_000, 200_000_000), s.rng.randint(200, 1500))
                                     for n in range(200))], sep="\t"), "Strongest E2 peaks.")
    s.call("run_r", {"code": "library(DiffBind)\ndba <- dba(sampleSheet = 'samples.csv')\ndba <- dba.count(dba, summits = 200)"},
           "ESR1_veh_1 MCF7 ESR1 vehicle 1 bed\nESR1_veh_2 MCF7 ESR1 vehicle 2 bed\n...\n"
           "Computing summits...\nRe-centering peaks...\n"
           "Error in dba.count(dba, summits = 200): Unable to open BAM file: /data/chip/bam/ESR1_E2_1.bam",
           error=True)
    s.say("The sample sheet lists /data/chip/bam/ESR1_E2_1.bam but the files are lower-case "
          "(ESR1_e2_1.bam), and paths are case-sensitive on Linux. Fix: correct the bamReads and bamControl "
          "columns in samples.csv rather than renaming the BAMs.")
    counts = table(["ID", "Condition", "Replicate", "Reads", "FRiP"],
                   [[f"ESR1_{x}", "E2" if x.startswith("e2") else "vehicle", x[-1], s.rng.randint(18_000_000, 32_000_000),
                     f"{s.rng.uniform(0.02, 0.19):.3f}"] for x in ("veh_1", "veh_2", "veh_3", "e2_1", "e2_2", "e2_3")])
    s.call("run_r", {"code": "dba <- dba(sampleSheet = 'samples_fixed.csv'); dba <- dba.count(dba, summits = 200); dba.show(dba)"},
           counts + "\n\nConsensus peakset: 31,214 sites in at least 2 samples.")
    s.say("We decided to normalise with DBA_NORM_RLE on reads in consensus peaks and background=FALSE: "
          "E2 induces many new sites, so library-size normalisation would understate the gain, and the "
          "vehicle FRiP is very low. Then DESeq2 through dba.analyze, FDR < 0.05.")
    rows = [[f"chr{c}", p, p + 400, g, f"{lfc:.2f}", f"{10 ** -s.rng.uniform(6, 40):.1e}"]
            for c, p, g, lfc in [(2, 11_535_700, "GREB1", 5.1), (21, 42_366_300, "TFF1", 4.6), (11, 101_130_500, "PGR", 3.9),
                                 (8, 127_733_200, "MYC", 2.2), (22, 28_798_900, "XBP1", 2.8), (1, 47_214_000, "CYP4Z1", 1.5),
                                 (17, 7_568_100, "KRT19", 1.2), (20, 50_750_300, "NCOA3", 1.8)]]
    rows += [[f"chr{s.rng.randint(1, 22)}", p, p + 400, "", f"{s.rng.uniform(1, 6):.2f}", f"{10 ** -s.rng.uniform(2, 20):.1e}"]
             for p in (s.rng.randint(1_000_000, 200_000_000) for _ in range(220))]
    s.call("run_r", {"code": "dba <- dba.normalize(dba, normalize = DBA_NORM_RLE, background = FALSE)\n"
                             "dba <- dba.analyze(dba, method = DBA_DESEQ2)\ndb <- dba.report(dba, th = 0.05); head(db, 228)"},
           "9,842 differentially bound sites at FDR < 0.05 (9,611 gained with E2, 231 lost)\n"
           + table(["chr", "start", "end", "nearest_gene", "Fold", "FDR"], rows))
    s.call("bash", {"command": "findMotifsGenome.pl gained.bed hg38 homer/ -size 200 -p 8 | head -40"},
           table(["Motif", "P-value", "% targets", "% background"],
                 [["ERE(NR),IR3/MCF7-ERa-ChIP-Seq", "1e-2412", "41.2%", "6.1%"],
                  ["FOXA1(Forkhead)/MCF7-FOXA1-ChIP-Seq", "1e-680", "33.0%", "12.4%"],
                  ["GRHL2(CP2)/HBE-GRHL2-ChIP-Seq", "1e-301", "18.9%", "6.8%"],
                  ["AP-2gamma(AP2)/MCF7-TFAP2C-ChIP-Seq", "1e-180", "14.1%", "5.7%"]]
                 + [[f"{s.rng.choice(HOMER)}/{s.rng.choice(CELLS)}-ChIP-Seq", f"1e-{s.rng.randint(2, 90)}", f"{s.rng.uniform(2, 20):.1f}%", f"{s.rng.uniform(1, 10):.1f}%"]
                    for n in range(36)]))
    s.user("So ERE plus FOXA1, as expected?")
    s.say("Yes: the full estrogen response element is the top motif (41 % of gained sites), and the "
          "pioneer factor FOXA1 motif is co-enriched, consistent with FOXA1-dependent ERα binding. Open "
          "question: should we intersect with FOXA1 ChIP from the same GEO series to split FOXA1-dependent sites?")
    s.user("Good. Summarise.")
    s.say("Final summary: ESR1 ChIP-seq in MCF-7 (GSE32222, hg38), MACS2 q < 0.01, DiffBind with RLE "
          "normalisation on reads in peaks, DESeq2: 9,842 differential sites (9,611 E2-gained) near GREB1, "
          "TFF1, PGR, MYC, XBP1; ERE and FOXA1 motifs enriched. Files: /results/chip/diffbind_fdr05.tsv.")
    return s


SCENARIOS: list[Callable[[], Script]] = [scrnaseq_qc, gatk_germline, crispr_mageck, bulk_deseq2, atac_peaks,
                                         proteomics, multiome_doublets, gwas_finemap, spatial_visium,
                                         metagenomics, chipseq_esr1]


def build() -> dict[str, str]:
    """File name -> content, for every transcript and expected.json."""
    files: dict[str, str] = {}
    expected: dict[str, Any] = {}
    for make in SCENARIOS:
        script = make()
        files[script.filename()] = script.render()
        expected[script.filename()] = script.must_survive
    files["expected.json"] = json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
    return files


def main() -> None:
    for name, content in build().items():
        (HERE / name).write_text(content, encoding="utf-8")
        print(f"wrote {name} ({len(content):,} characters)", file=sys.stderr)


if __name__ == "__main__":
    main()
