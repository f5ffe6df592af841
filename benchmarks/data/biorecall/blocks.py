"""The hand-written building blocks of BioRecall: families of analyses, and the questions.

A family is one kind of analysis (doublet removal, a MAGeCK screen, a GWAS, ...). Its ``data``
are the samples or datasets it ran on, its ``methods`` the tools with their parameters, its
``outcomes`` what came out (``ok``) or what went wrong (``fail``), each with the lessons drawn.
``episodes`` lists the (data:method:outcome) combinations that were actually run, in order;
the same combination twice is a re-run (a near-duplicate with other numbers).

A question's judgements are patterns ``family:data:method:outcome`` ("*" any, "a|b" either,
outcome "+" any success, "-" any failure); an episode's grade is the highest whose pattern matches:
3 = answers the question, 2 = closely related, 1 = partially useful.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Data:
    name: str
    short: str
    entities: tuple[str, ...] = ()
    slots: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Method:
    tools: tuple[str, ...]
    plan: str
    entities: tuple[str, ...] = ()
    lessons: tuple[str, ...] = ()
    slots: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    success: bool
    result: str
    lessons: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    quality: tuple[float, float] | None = None


@dataclass(frozen=True)
class Family:
    key: str
    domains: tuple[str, ...]
    tasks: tuple[str, ...]
    data: dict[str, Data]
    methods: dict[str, Method]
    outcomes: dict[str, Outcome]
    episodes: tuple[str, ...]


@dataclass(frozen=True)
class Question:
    category: str  # paraphrase, alias, failure, identifier, tool
    text: str
    judgements: dict[int, tuple[str, ...]]


def D(name: str, short: str, *entities: str, **slots: Any) -> Data:
    return Data(name, short, entities, slots)


def M(tools: str, plan: str, *, entities: tuple[str, ...] = (), lessons: tuple[str, ...] = (),
      **slots: Any) -> Method:
    return Method(tuple(t.strip() for t in tools.split(",")), plan, entities, lessons, slots)


def ok(result: str, *lessons: str, entities: tuple[str, ...] = (), tools: str = "",
       quality: tuple[float, float] | None = None) -> Outcome:
    return Outcome(True, result, lessons, entities, tuple(t.strip() for t in tools.split(",") if t.strip()), quality)


def fail(result: str, *lessons: str, entities: tuple[str, ...] = (), tools: str = "",
         quality: tuple[float, float] | None = None) -> Outcome:
    return Outcome(False, result, lessons, entities, tuple(t.strip() for t in tools.split(",") if t.strip()), quality)


FAMILIES: list[Family] = []
QUERIES: list[Question] = []


def family(key: str, domains: str, tasks: tuple[str, ...], data: dict[str, Data], methods: dict[str, Method],
           outcomes: dict[str, Outcome], episodes: str) -> None:
    FAMILIES.append(Family(key, tuple(d.strip() for d in domains.split(",")), tasks, data, methods, outcomes,
                           tuple(episodes.split())))


def ask(category: str, text: str, g3: str, g2: str = "", g1: str = "") -> None:
    """A question; g3/g2/g1 are space-separated patterns."""
    QUERIES.append(Question(category, text, {g: tuple(p.split()) for g, p in ((3, g3), (2, g2), (1, g1)) if p}))


# =============================================================================================
# scRNA-seq
# =============================================================================================

family(
    "sc-doublets", "scRNA-seq",
    ("Remove doublets from {data} before clustering",
     "Flag and drop multiplets in {data}",
     "Doublet detection for {short} ahead of annotation",
     "Clean heterotypic doublets out of {data}"),
    {
        "pbmc": D("the 10x Chromium 3' v3 PBMC library from a healthy donor (10,000 cells targeted)",
                  "the PBMC 10k library", "PTPRC", "CD3E", "CD14"),
        "multiome": D("the 10x Multiome (GEX + ATAC) PBMC data from four donors (GSE194122)",
                      "the Multiome PBMC data", "GSE194122", "CD14", "MS4A1"),
        "luad": D("dissociated lung adenocarcinoma resections from 6 patients (10x 3' v3.1)",
                  "the LUAD tumour samples", "EPCAM", "SFTPC", "MONDO:0005061"),
        "cortex": D("E18 mouse cortex single nuclei (snRNA-seq, 10x v3, 3 pooled embryos)",
                    "the E18 cortex nuclei", "Neurod6", "Gad2", "UBERON:0001851"),
        "liver": D("human fetal liver CD34+ cells hashed with TotalSeq-A across 8 donors",
                   "the hashed fetal liver run", "CD34", "GATA1", "HBB"),
    },
    {
        "scdbl": M("scDblFinder, Seurat",
                   "scDblFinder 1.16 per sample (samples= argument, clusters=TRUE, default rate of 1% per 1,000 "
                   "cells), doublets removed before SCTransform, 30 PCs and Louvain clustering at resolution 0.8."),
        "scdbl-merged": M("scDblFinder, Seurat",
                          "Merged all samples into one Seurat object, then scDblFinder (clusters=TRUE, dbr 0.08) "
                          "on the merged counts, then SCTransform and clustering."),
        "dfinder": M("DoubletFinder, Seurat",
                     "DoubletFinder with pN 0.25, pK from the BCmvn maximum, nExp from the 10x loading table "
                     "([[rate:4-9:1]]% for the recovered cell count) adjusted for homotypic proportion."),
        "scrublet": M("Scrublet, scanpy",
                      "Scrublet per sample (expected_doublet_rate 0.06, sim_doublet_ratio 2, 30 PCs) with the "
                      "threshold taken automatically from the simulated doublet score histogram."),
        "rna-atac": M("scDblFinder, ArchR, Signac",
                      "scDblFinder per sample on the RNA counts plus ArchR addDoubletScores (k 10, LSI) on the "
                      "ATAC fragments; a barcode is dropped if either modality calls it."),
        "hto": M("Seurat, scDblFinder",
                 "HTODemux on CLR-normalised hashtag counts (positive.quantile 0.99) for inter-donor doublets, "
                 "then scDblFinder on the singlets for within-donor doublets."),
        "solo": M("scvi-tools, scanpy",
                  "SOLO (scvi-tools) on a per-batch scVI model (n_latent 10, 400 epochs); doublet when the "
                  "softmax score exceeds 0.5."),
    },
    {
        "ok": ok("[[pct:5-11:1]]% of barcodes called doublets ([[n:400-1100]] cells); the small clusters that "
                 "co-expressed {pair} disappeared and the remaining clusters kept clean marker profiles.",
                 "Check for clusters co-expressing markers of two lineages after removal.",
                 "Run doublet detection per sample, before merging or integrating."),
        "ok-multi": ok("Combining the RNA and ATAC calls removed [[pct:9-12:1]]% of barcodes; the mixed T cell / "
                       "monocyte cluster was gone and WNN clustering gave [[k:12-16]] clean clusters.",
                       "For Multiome, call doublets on both modalities and combine the calls."),
        "ok-hto": ok("HTODemux called [[pct:8-14:1]]% cross-donor doublets and [[neg:2-6:1]]% negatives; "
                     "scDblFinder added [[w:2-5:1]]% within-donor doublets. Hashing and scDblFinder agreed on "
                     "[[agree:71-88]]% of the cross-donor calls.",
                     "Hashtags only catch doublets between donors; add an expression-based caller for the rest."),
        "fail-merged": fail("Calling on the merged object simulated artificial doublets between samples of "
                            "different depth: [[pct:18-27]]% of barcodes flagged and a genuine CD14 monocyte "
                            "subcluster removed. Redone per sample: [[pct2:6-9:1]]%.",
                            "Never call doublets on a merged multi-sample object; run per sample "
                            "(samples= in scDblFinder)."),
        "fail-rna-only": fail("Called doublets on the RNA modality only: [[pct:4-7:1]]% removed, but a cluster "
                              "with open chromatin at both CD3E and LYZ remained, i.e. T cell / monocyte doublets "
                              "invisible in expression. ArchR doublet scores removed another [[more:2-4:1]]%.",
                              "For Multiome, call doublets on both modalities and combine the calls.",
                              tools="ArchR"),
        "fail-threshold": fail("The doublet score histogram was unimodal, the automatic threshold landed at "
                               "[[thr:0.10-0.20:2]] and only [[pct:0.5-1.5:1]]% were called in a library loaded "
                               "for about 8%; erythroid-myeloid doublet clusters survived into clustering.",
                               "When the score distribution is unimodal, set the threshold by hand from the "
                               "expected rate instead of trusting the automatic call."),
        "fail-pk": fail("BCmvn was flat between pK 0.005 and 0.3; the chosen pK 0.3 flagged mostly large, "
                        "high-UMI plasma cells, a real population, as doublets ([[pct:9-13]]% removed).",
                        "If BCmvn has no clear peak, compare calls across pK and check the flagged cells are not "
                        "one real high-UMI population."),
    },
    "pbmc:scdbl:ok pbmc:dfinder:ok luad:scdbl-merged:fail-merged multiome:scdbl:fail-rna-only "
    "multiome:rna-atac:ok-multi cortex:scrublet:fail-threshold cortex:solo:ok liver:hto:ok-hto "
    "luad:dfinder:fail-pk pbmc:scrublet:ok luad:scdbl:ok",
)
for _key, _pair in (("pbmc", "CD3E and CD14"), ("multiome", "CD3E and LYZ"), ("luad", "EPCAM and PTPRC"),
                    ("cortex", "Slc17a7 and Gad2"), ("liver", "GATA1 and MPO")):
    FAMILIES[-1].data[_key].slots["pair"] = _pair
ask("failure", "what went wrong last time we removed doublets from 10x multiome data?",
    "sc-doublets:multiome:*:-", "sc-doublets:multiome sc-doublets:*:*:fail-merged", "sc-doublets")
ask("paraphrase", "cells that look like two lineages glued together after clustering, how did we filter them out",
    "sc-doublets:*:*:ok|ok-multi|ok-hto", "sc-doublets")
ask("tool", "DoubletFinder pK choice", "sc-doublets:*:dfinder", "sc-doublets")
ask("failure", "doublet caller threw away a real cell population", "sc-doublets:*:*:fail-merged|fail-pk",
    "sc-doublets:*:*:-")
ask("paraphrase", "demultiplexing cell hashing tags to find cross-donor multiplets",
    "sc-doublets:liver:hto", "sc-doublets")

family(
    "sc-ambient", "scRNA-seq",
    ("Correct ambient RNA contamination in {data}",
     "Remove the soup from {short}",
     "Estimate and subtract background mRNA in {data}"),
    {
        "lung": D("dissociated lung tumour scRNA-seq (8 channels, 10x 3' v3)", "the lung tumour channels",
                  "SFTPC", "SFTPB", "EPCAM"),
        "kidney": D("human kidney biopsies processed with cold-active protease (snRNA-seq, 12 samples)",
                    "the kidney nuclei", "UMOD", "SLC34A1", "UBERON:0002113"),
        "pbmc": D("cryopreserved PBMC from a COVID-19 cohort (24 samples, 10x 5')", "the COVID PBMC",
                  "HBB", "PPBP", "MONDO:0100096"),
        "brain": D("post-mortem human prefrontal cortex nuclei (snRNA-seq, 9 donors)", "the cortex nuclei",
                   "PLP1", "MBP", "SNAP25"),
    },
    {
        "soupx": M("SoupX, Seurat", "SoupX autoEstCont with Leiden clusters per channel (tfidfMin 1, "
                   "soupQuantile 0.9), then adjustCounts with roundToInt=TRUE."),
        "cellbender": M("CellBender", "CellBender remove-background 0.3 (expected-cells from the knee, "
                        "total-droplets-included 25,000, 150 epochs, FPR 0.01) on the raw feature matrix."),
        "decontx": M("decontX, celda", "decontX (celda) per sample with the Leiden clusters as z, default "
                     "priors, on the filtered matrix."),
    },
    {
        "ok": ok("Estimated contamination rho [[lo:3-5]]-[[hi:9-14]]% per channel; after correction {marker} "
                 "counts in clusters that do not express it fell by [[drop:70-90]]% and the spurious signal "
                 "was gone.",
                 "Judge the soup by marker genes of abundant cell types showing up in unrelated clusters."),
        "ok-cb": ok("Removed an estimated [[amb:6-15]]% ambient counts; {marker} in non-expressing clusters "
                    "dropped to near zero and [[ext:300-900]] extra real cells were recovered from the "
                    "low-UMI droplets.",
                    "Give CellBender the raw (unfiltered) matrix; it needs the empty droplets to learn the soup."),
        "fail-gpu": fail("CellBender on CPU ran [[h:19-30]] hours per sample and one job was killed at the "
                         "wall-time limit, so only [[done:3-6]] samples were corrected; mixing corrected and "
                         "uncorrected samples created a batch effect in the UMAP.",
                         "Run CellBender on a GPU (about 20 minutes per sample) or correct every sample the same way.",
                         quality=(0.2, 0.4)),
        "fail-clusters": fail("autoEstCont failed ('no non-expressed genes found') because the clusters were too "
                              "coarse (resolution 0.2); a manual rho of 0.2 over-corrected and erased "
                              "{marker} in its own cell type.",
                              "Give SoupX fine clusters (resolution 1 or more) and check the estimated rho "
                              "against known non-expressed marker genes."),
    },
    "lung:soupx:ok kidney:cellbender:ok-cb pbmc:cellbender:fail-gpu brain:soupx:fail-clusters "
    "brain:decontx:ok lung:cellbender:ok-cb kidney:soupx:ok pbmc:decontx:ok",
)
# the marker slot per data set
for _fam in FAMILIES[-1:]:
    for _key, _marker in (("lung", "SFTPC"), ("kidney", "UMOD"), ("pbmc", "HBB"), ("brain", "PLP1")):
        _fam.data[_key].slots["marker"] = _marker
ask("paraphrase", "free-floating transcripts from lysed cells contaminating droplets, how was it cleaned up?",
    "sc-ambient:*:*:+", "sc-ambient")
ask("tool", "CellBender remove-background runtime and settings", "sc-ambient:*:cellbender", "sc-ambient")
ask("failure", "SoupX could not estimate the contamination fraction", "sc-ambient:*:soupx:fail-clusters",
    "sc-ambient:*:soupx", "sc-ambient")
ask("alias", "haemoglobin beta reads showing up in every PBMC cluster", "sc-ambient:pbmc",
    "sc-ambient", "sc-qc:pbmc")

family(
    "sc-qc", "scRNA-seq",
    ("Set cell QC thresholds for {data}",
     "Filter low-quality cells and empty droplets in {short}",
     "Quality control of {data} before downstream analysis"),
    {
        "heart": D("human heart left ventricle nuclei (snRNA-seq, 14 donors)", "the heart nuclei",
                   "TTN", "MYH7", "UBERON:0002084"),
        "liver": D("mouse liver scRNA-seq after partial hepatectomy (10x v3, 6 mice)", "the regenerating liver",
                   "Alb", "Cyp2e1", "NCBITaxon:10090"),
        "pbmc": D("PBMC from a vaccine time course (5 time points, 10x 5')", "the vaccine PBMC",
                  "PTPRC", "MT-CO1"),
        "tumor": D("colorectal tumour and matched normal mucosa (10x 3' v3.1, 10 patients)", "the CRC samples",
                   "EPCAM", "LGR5", "MONDO:0005575"),
    },
    {
        "fixed": M("scanpy", "Fixed thresholds: min_genes 200, max_genes 6,000, pct_counts_mt below 10%, "
                   "min_cells 3 per gene."),
        "mad": M("scater, scran", "Per-sample outliers by 3 MADs on log library size, log genes detected and "
                 "mitochondrial fraction (scater isOutlier with batch=sample)."),
        "ddqc": M("ddqc, pegasus", "Data-driven QC (ddqc) per cluster: thresholds of 2 MADs within each "
                  "cluster after an initial clustering at resolution 1.3."),
        "emptydrops": M("DropletUtils, scater", "emptyDrops (lower 100, FDR 0.001) on the raw matrix to call "
                        "cells, then 3-MAD outlier removal per sample."),
    },
    {
        "ok": ok("Kept [[kept:82-93]]% of barcodes ([[n:41000-98000]] cells); no cluster was defined by "
                 "mitochondrial or ribosomal genes and median genes per cell was [[g:1200-2600]].",
                 "Set QC thresholds per sample from the data (MADs), not from a fixed list."),
        "fail-mt": fail("The fixed 10% mitochondrial cut removed [[lost:35-60]]% of {celltype}, which are "
                        "mitochondria-rich by biology; the {celltype} cluster nearly vanished and compositional "
                        "comparisons were biased.",
                        "Never apply a blanket mitochondrial threshold to metabolically active cell types "
                        "(cardiomyocytes, hepatocytes, kidney tubule); use per-cluster or MAD-based thresholds."),
        "fail-emptydrops": fail("emptyDrops with lower 100 kept [[amb:3000-7000]] ambient-only barcodes because the "
                                "ambient profile was dominated by lysed {celltype}; these formed a "
                                "low-UMI cluster that looked like a new state.",
                                "Inspect the barcode rank plot and raise the lower bound when the ambient pool "
                                "is large."),
        "ok-ddqc": ok("Per-cluster thresholds kept [[kept:88-95]]% of cells including the mitochondria-rich "
                      "{celltype}, which a fixed 10% cut would have lost ([[saved:2000-6000]] cells).",
                      "Data-driven per-cluster QC keeps metabolically active cell types."),
    },
    "heart:fixed:fail-mt heart:ddqc:ok-ddqc liver:fixed:fail-mt liver:mad:ok pbmc:mad:ok "
    "tumor:emptydrops:fail-emptydrops tumor:mad:ok pbmc:emptydrops:ok",
)
for _key, _ct in (("heart", "cardiomyocytes"), ("liver", "hepatocytes"), ("pbmc", "platelets"),
                  ("tumor", "epithelial tumour cells")):
    FAMILIES[-1].data[_key].slots["celltype"] = _ct
ask("failure", "mitochondrial percent filter killed the cardiomyocytes", "sc-qc:heart:fixed",
    "sc-qc:*:*:fail-mt sc-qc:heart", "sc-qc")
ask("paraphrase", "how strict should the per-cell filtering be for hepatocytes with lots of mito reads",
    "sc-qc:liver", "sc-qc:*:*:fail-mt|ok-ddqc", "sc-qc")
ask("tool", "emptyDrops lower bound and ambient barcodes", "sc-qc:*:emptydrops", "sc-qc", "sc-ambient")

family(
    "sc-integration", "scRNA-seq",
    ("Integrate {data} across batches",
     "Batch-correct {short} for a joint embedding",
     "Harmonise {data} so that cell types align across samples"),
    {
        "atlas": D("a lung atlas of 5 studies and 3 chemistries (412,000 cells)", "the lung atlas",
                   "GSE136831", "GSE135893", "SFTPC"),
        "ibd": D("Crohn's disease and control ileum biopsies from 3 centres (10x v2 and v3)", "the IBD biopsies",
                 "MONDO:0005011", "EPCAM", "PTPRC"),
        "organoid": D("brain organoids from 4 iPSC lines at days 30, 60 and 90", "the organoid time course",
                      "SOX2", "NEUROD2", "EOMES"),
        "pbmc": D("PBMC from lupus patients and controls processed on 6 days", "the lupus PBMC",
                  "MONDO:0007915", "IFI27", "ISG15"),
    },
    {
        "harmony": M("Harmony, Seurat", "Harmony on 50 PCs with sample as the batch variable (theta 2, "
                     "lambda 1), UMAP and Leiden on the corrected embedding."),
        "scvi": M("scvi-tools, scanpy", "scVI (n_latent 30, 2 layers, gene_likelihood nb, batch_key sample) on "
                  "4,000 HVGs, 400 epochs; scIB metrics to compare with unintegrated PCA."),
        "scanvi": M("scvi-tools, scanpy", "scANVI seeded with the labels of the best annotated study, "
                    "then label transfer to the rest; scIB benchmarking."),
        "cca": M("Seurat", "Seurat v5 CCA integration (IntegrateLayers, k.anchor 5, 30 dimensions) on "
                 "SCTransform-normalised data."),
        "bbknn": M("BBKNN, scanpy", "BBKNN (neighbors_within_batch 3, 50 PCs, trim 0) then Leiden."),
    },
    {
        "ok": ok("Batch ASW [[basw:0.82-0.93:2]], cell-type ASW [[casw:0.55-0.70:2]], kBET acceptance "
                 "[[kbet:0.6-0.85:2]]; cell types from every batch co-clustered and no cluster was private "
                 "to one batch.",
                 "Compare integration methods with scIB metrics (batch mixing and biological conservation) "
                 "rather than by eye."),
        "fail-over": fail("Over-correction: the disease-specific population ({dstate}) was merged into its "
                          "healthy counterpart because condition was nearly confounded with batch; cell-type "
                          "ASW fell to [[casw:0.3-0.4:2]].",
                          "When condition and batch are confounded, do not integrate on sample; use "
                          "a reference-mapping approach or keep condition-specific states out of the correction."),
        "fail-chem": fail("Chemistry (v2 vs v3) dominated the embedding after integration: kBET acceptance "
                          "[[kbet:0.10-0.25:2]] and v2 cells formed their own clusters even though marker "
                          "genes matched.",
                          "Include chemistry as a batch covariate and use a model-based method (scVI) for "
                          "strong technical effects."),
        "ok-transfer": ok("scANVI transferred labels to [[pct:91-97]]% of cells with confidence above 0.8; "
                          "disagreements concentrated in transitional states.",
                          "Seed semi-supervised integration with the best annotated study."),
    },
    "atlas:scvi:ok atlas:harmony:fail-chem atlas:scanvi:ok-transfer ibd:harmony:fail-over ibd:scvi:ok "
    "organoid:cca:ok pbmc:harmony:ok pbmc:bbknn:fail-over organoid:bbknn:ok",
)
for _key, _d in (("atlas", "fibrotic aberrant basaloid cells"), ("ibd", "inflamed IL1B+ macrophages"),
                 ("organoid", "day-90 outer radial glia"), ("pbmc", "interferon-high monocytes")):
    FAMILIES[-1].data[_key].slots["dstate"] = _d
ask("failure", "integration removed the disease state along with the batch effect",
    "sc-integration:*:*:fail-over", "sc-integration:*:*:-", "sc-integration")
ask("paraphrase", "mixing 10x v2 and v3 chemistry in one embedding", "sc-integration:atlas:*:fail-chem",
    "sc-integration:atlas sc-integration:*:scvi", "sc-integration")
ask("tool", "scIB benchmark of scVI against Harmony", "sc-integration:*:scvi|harmony:ok",
    "sc-integration", "")

family(
    "sc-annotation", "scRNA-seq",
    ("Annotate cell types in {data}",
     "Assign cell identities to the clusters of {short}",
     "Label {data} with a reference"),
    {
        "pbmc": D("PBMC from a CAR-T trial (10x 5' with TCR, 8 patients)", "the CAR-T PBMC", "CD8A", "CD4",
                  "CL:0000625"),
        "tumor": D("melanoma metastases (Smart-seq2 and 10x, 15 patients)", "the melanoma samples",
                   "MLANA", "PMEL", "MONDO:0005105"),
        "marrow": D("bone marrow aspirates of AML patients at diagnosis (10x 3' v3)", "the AML marrow",
                    "CD34", "MPO", "MONDO:0018874"),
        "gut": D("fetal gut epithelium from 8 to 22 weeks (10x v3)", "the fetal gut", "LGR5", "CHGA",
                 "UBERON:0000160"),
    },
    {
        "celltypist": M("CellTypist, scanpy", "CellTypist with the Immune_All_Low model, majority voting over "
                        "Leiden clusters (resolution 2)."),
        "singler": M("SingleR, celldex", "SingleR with the HPCA and Blueprint-ENCODE references, fine labels, "
                     "pruned by the delta outlier test."),
        "azimuth": M("Azimuth, Seurat", "Azimuth reference mapping to the human PBMC / bone marrow reference, "
                     "level-2 labels with mapping score."),
        "markers": M("Seurat", "Manual annotation from FindAllMarkers (Wilcoxon, min.pct 0.25, logfc 0.5) and "
                     "a curated marker list per lineage."),
    },
    {
        "ok": ok("[[n:18-31]] cell types assigned; [[agree:84-94]]% agreement with the marker-based labels and "
                 "the disagreements were in transitional populations; labels stored as CL terms.",
                 "Store labels with Cell Ontology ids so they can be compared across studies."),
        "fail-ref": fail("The reference lacked {missing}, so they were forced onto the nearest reference type "
                         "({wrong}) with high confidence; [[pct:7-15]]% of cells were mislabelled until "
                         "checked against markers.",
                         "Check that the reference contains every expected cell type; treat confident labels "
                         "for cells absent from the reference as wrong until markers confirm them."),
        "fail-markers": fail("Marker-based labels split one population into [[k:3-5]] 'types' that were cell "
                             "cycle and stress states (MKI67, FOS/JUN) rather than identities.",
                             "Score cell cycle and dissociation stress before naming clusters."),
        "ok-markers": ok("[[n:12-20]] populations named from markers and checked against published signatures; "
                         "rare {rare} ([[rn:40-200]] cells) found at resolution 2.",
                         "Subcluster at higher resolution to find rare populations."),
    },
    "pbmc:celltypist:ok pbmc:azimuth:ok tumor:singler:fail-ref tumor:markers:ok-markers marrow:azimuth:fail-ref "
    "marrow:markers:fail-markers gut:markers:ok-markers gut:singler:ok",
)
for _key, _m, _w, _r in (("pbmc", "CAR-T cells", "activated CD8 T cells", "MAIT cells"),
                         ("tumor", "malignant melanocytes", "fibroblasts", "plasmacytoid dendritic cells"),
                         ("marrow", "leukaemic blasts", "HSC / MPP", "basophil progenitors"),
                         ("gut", "fetal enteroendocrine progenitors", "goblet cells", "tuft cells")):
    FAMILIES[-1].data[_key].slots.update(missing=_m, wrong=_w, rare=_r)
ask("failure", "reference-based labels were confidently wrong for tumour cells not in the reference",
    "sc-annotation:*:*:fail-ref", "sc-annotation:*:singler|azimuth", "sc-annotation")
ask("paraphrase", "naming clusters in the AML bone marrow", "sc-annotation:marrow", "sc-annotation",
    "")
ask("tool", "CellTypist majority voting", "sc-annotation:*:celltypist", "sc-annotation")
ask("identifier", "CL:0000625 CD8-positive T cells label", "sc-annotation:pbmc", "sc-annotation:*:*:ok", "")

family(
    "sc-de", "scRNA-seq",
    ("Differential expression between conditions in {data}",
     "Find genes changed by treatment per cell type in {short}",
     "Condition DE for {data}"),
    {
        "covid": D("PBMC of severe COVID-19 versus healthy donors (16 vs 12 donors)", "the COVID cohort",
                   "IFI27", "ISG15", "MONDO:0100096"),
        "ad": D("Alzheimer's disease vs control prefrontal cortex nuclei (24 vs 24 donors)", "the AD cortex",
                "APOE", "GFAP", "MONDO:0004975"),
        "tx": D("kidney organoids treated with cisplatin vs vehicle (4 lines x 2 conditions)",
                "the cisplatin organoids", "HAVCR1", "LCN2"),
        "mouse": D("lung of bleomycin vs saline mice (day 14, 5 vs 5 mice)", "the bleomycin lungs",
                   "Col1a1", "Spp1", "NCBITaxon:10090"),
    },
    {
        "pseudo": M("DESeq2, muscat", "Pseudobulk per donor and cell type (muscat aggregateData, sum of "
                    "counts), DESeq2 with ~ sex + condition, cell types with at least 10 cells per donor."),
        "edger": M("edgeR, scran", "Pseudobulk with scran aggregateAcrossCells, edgeR quasi-likelihood "
                   "(glmQLFit, robust=TRUE), TMM normalisation."),
        "wilcox": M("Seurat", "Seurat FindMarkers (Wilcoxon) per cell type between conditions over all cells, "
                    "logfc.threshold 0.25, Bonferroni-adjusted p."),
        "mast": M("MAST, Seurat", "MAST hurdle model per cell type with cellular detection rate and donor as "
                  "a random effect."),
    },
    {
        "ok": ok("[[n:150-900]] genes at FDR 0.05 in {top}; {gene} among the top hits (log2FC [[fc:1.2-3.4:1]]). "
                 "P-value histograms were well behaved.",
                 "Use donors, not cells, as replicates: pseudobulk per donor and cell type."),
        "fail-pseudorep": fail("Cell-level Wilcoxon gave [[n:4000-9000]] 'significant' genes in {top} with "
                               "p-values far below anything a donor-level test supports; [[rep:5-15]]% "
                               "replicated in a pseudobulk re-analysis.",
                               "Cell-level tests treat cells as independent replicates (pseudoreplication) "
                               "and inflate significance; use pseudobulk or mixed models."),
        "fail-lowcells": fail("Rare cell types had 2-6 cells per donor; DESeq2 size factors were unstable and "
                              "{rare} results were dominated by one donor.",
                              "Drop cell type x donor combinations with too few cells before pseudobulk DE."),
        "ok-mixed": ok("Mixed model with donor as random effect gave [[n:120-500]] DE genes in {top}, "
                       "[[ov:78-90]]% overlapping the pseudobulk result.",
                       "A donor random effect in MAST gives results close to pseudobulk."),
    },
    "covid:pseudo:ok covid:wilcox:fail-pseudorep ad:pseudo:ok ad:wilcox:fail-pseudorep ad:mast:ok-mixed "
    "tx:edger:ok mouse:edger:fail-lowcells mouse:pseudo:ok",
)
for _key, _top, _gene, _rare in (("covid", "classical monocytes", "IFI27", "plasmablasts"),
                                 ("ad", "astrocytes", "GFAP", "vascular leptomeningeal cells"),
                                 ("tx", "proximal tubule cells", "HAVCR1", "podocyte precursors"),
                                 ("mouse", "alveolar macrophages", "Spp1", "aberrant basaloid cells")):
    FAMILIES[-1].data[_key].slots.update(top=_top, gene=_gene, rare=_rare)
ask("failure", "why did the single-cell differential expression give thousands of significant genes",
    "sc-de:*:wilcox", "sc-de", "")
ask("paraphrase", "treating donors rather than cells as the replicate unit for per-celltype DE",
    "sc-de:*:pseudo|edger:ok", "sc-de", "bulk-de")
ask("alias", "GFAP reactive astrocytes in Alzheimer's single nucleus DE", "sc-de:ad", "sc-de", "")

family(
    "sc-trajectory", "scRNA-seq",
    ("Infer differentiation trajectories in {data}",
     "RNA velocity and pseudotime for {short}",
     "Order {data} along a developmental trajectory"),
    {
        "hemato": D("CD34+ haematopoietic progenitors from cord blood (10x v3, 3 donors)", "the cord blood HSPCs",
                    "CD34", "GATA1", "MPO"),
        "pancreas": D("mouse E15.5 pancreatic endocrinogenesis (10x v2)", "the E15.5 pancreas",
                      "Neurog3", "Ins1", "Gcg"),
        "tcell": D("tumour-infiltrating CD8 T cells from checkpoint-treated melanoma", "the TIL CD8 cells",
                   "TOX", "PDCD1", "HAVCR2", "TCF7"),
        "neuro": D("human cortical organoids, days 25-100 (10x v3.1)", "the cortical organoids",
                   "PAX6", "EOMES", "NEUROD6"),
    },
    {
        "scvelo": M("scVelo, velocyto, scanpy", "velocyto run10x for spliced/unspliced counts, scVelo dynamical "
                    "model (n_top_genes 2,000, 30 neighbours), latent time."),
        "monocle": M("Monocle3", "Monocle3 learn_graph with use_partition FALSE, root chosen at the {root} "
                     "cluster, pseudotime and graph_test (Moran's I) for trajectory genes."),
        "palantir": M("Palantir, scanpy", "Palantir on 10 diffusion components with the start cell in the "
                      "{root} cluster, 500 waypoints; terminal states detected automatically."),
        "cellrank": M("CellRank, scVelo", "CellRank 2 with a velocity kernel (0.8) combined with a "
                      "connectivity kernel (0.2); GPCCA for macrostates and fate probabilities."),
    },
    {
        "ok": ok("Recovered [[n:3-5]] lineages from {root}; known drivers ({driver}) rose along pseudotime and "
                 "fate probabilities matched sorted-population bulk data.",
                 "Check trajectories against known marker order before interpreting new genes."),
        "fail-reversed": fail("Velocity arrows pointed from mature cells back to {root}: the unspliced counts "
                              "came from a GTF with retained-intron transcripts, and most genes violated the "
                              "steady-state assumption (transcriptional boost).",
                              "Check the phase portraits of known genes before trusting velocity direction; "
                              "genes with a transcriptional boost reverse the arrows."),
        "fail-root": fail("The automatic root landed in a cycling cluster, so pseudotime ran from proliferating "
                          "cells to {root}; the trajectory was biologically inverted.",
                          "Set the root from marker genes, not automatically."),
        "ok-fate": ok("Fate probabilities separated [[n:2-4]] terminal states; {driver} was among the top "
                      "lineage drivers (correlation [[r:0.5-0.8:2]]).",
                      "Combine velocity with a similarity kernel for noisy data."),
    },
    "hemato:palantir:ok hemato:scvelo:fail-reversed pancreas:scvelo:ok pancreas:cellrank:ok-fate "
    "tcell:monocle:fail-root tcell:cellrank:ok-fate neuro:monocle:ok neuro:scvelo:fail-reversed",
)
for _key, _root, _drv in (("hemato", "HSC", "GATA1 and MPO"), ("pancreas", "Ngn3-high progenitor", "Neurog3"),
                          ("tcell", "TCF7+ progenitor-exhausted", "TOX"), ("neuro", "radial glia", "EOMES")):
    FAMILIES[-1].data[_key].slots.update(root=_root, driver=_drv)
ask("failure", "velocity arrows pointing backwards", "sc-trajectory:*:scvelo:fail-reversed",
    "sc-trajectory:*:scvelo|cellrank", "sc-trajectory")
ask("paraphrase", "where do exhausted T cells come from along pseudotime", "sc-trajectory:tcell",
    "sc-trajectory", "")
ask("tool", "Palantir waypoints and start cell", "sc-trajectory:*:palantir", "sc-trajectory")

family(
    "sc-ccc", "scRNA-seq",
    ("Cell-cell communication analysis in {data}",
     "Ligand-receptor interactions between compartments of {short}",
     "Which cells talk to which in {data}"),
    {
        "tme": D("the tumour microenvironment of triple-negative breast cancer (10x, 20 patients)", "the TNBC TME",
                 "CXCL13", "CD274", "MONDO:0005494"),
        "fibrosis": D("idiopathic pulmonary fibrosis lungs vs controls", "the IPF lungs", "TGFB1", "SPP1",
                      "MONDO:0008345"),
        "gut": D("inflamed vs non-inflamed ulcerative colitis biopsies", "the UC biopsies", "OSM", "OSMR",
                 "MONDO:0005101"),
    },
    {
        "cellchat": M("CellChat", "CellChat v2 with CellChatDB.human, triMean, population.size TRUE, "
                      "min.cells 10; comparison of conditions with rankNet."),
        "liana": M("LIANA, scanpy", "LIANA rank_aggregate across CellPhoneDB, NATMI, Connectome, SingleCellSignalR "
                   "and logFC methods, consensus resource, expr_prop 0.1."),
        "nichenet": M("NicheNet, Seurat", "NicheNet with the DE genes of the receiver as the gene set of interest, "
                      "ligand activity by AUPR, top 20 ligands."),
    },
    {
        "ok": ok("Top interactions: {pair}; signalling from {sender} to {receiver} increased [[x:2-5]]-fold in "
                 "disease and was validated by RNAscope in [[n:3-6]] sections.",
                 "Validate predicted interactions spatially; ligand-receptor scores are hypotheses."),
        "fail-abund": fail("The top 'interactions' were driven by cell abundance: the largest population "
                           "dominated every ranking and the disease comparison mostly reflected composition "
                           "changes.",
                           "Control for cell-type abundance (population.size, or subsample to equal numbers) "
                           "before comparing communication between conditions."),
        "fail-resource": fail("Results changed almost completely between resources: only [[ov:8-20]]% of the top "
                              "100 interactions were shared between CellPhoneDB and the consensus resource.",
                              "Report the resource used and prefer consensus rankings across methods."),
    },
    "tme:cellchat:ok tme:liana:fail-resource fibrosis:cellchat:fail-abund fibrosis:nichenet:ok gut:liana:ok "
    "gut:nichenet:ok tme:nichenet:ok",
)
for _key, _pair, _s, _r in (("tme", "CXCL13-CXCR5 and CD274-PDCD1", "exhausted CD8 T cells", "B cells"),
                            ("fibrosis", "SPP1-CD44 and TGFB1-TGFBR2", "SPP1+ macrophages", "fibroblasts"),
                            ("gut", "OSM-OSMR and IL1B-IL1R1", "inflammatory monocytes", "stromal cells")):
    FAMILIES[-1].data[_key].slots.update(pair=_pair, sender=_s, receiver=_r)
ask("alias", "PD-L1 to PD-1 signalling between tumour and T cells", "sc-ccc:tme", "sc-ccc", "")
ask("failure", "ligand receptor results dominated by the most abundant cell type",
    "sc-ccc:*:*:fail-abund", "sc-ccc", "")
ask("paraphrase", "which macrophage signals drive fibroblasts in lung fibrosis", "sc-ccc:fibrosis",
    "sc-ccc", "")


# =============================================================================================
# scATAC-seq, multiome, epigenomics
# =============================================================================================

family(
    "atac-qc", "scATAC-seq",
    ("QC and peak calling for {data}",
     "Process {short} from fragments to a peak matrix",
     "Set up the scATAC pipeline for {data}"),
    {
        "pbmc": D("10x scATAC-seq of PBMC from 3 donors (Cell Ranger ATAC 2.1)", "the PBMC scATAC",
                  "CD3E", "MS4A1", "GRCh38"),
        "islet": D("human pancreatic islets from type 2 diabetes donors (snATAC, 12 donors)", "the islet snATAC",
                   "INS", "GCG", "MONDO:0005148"),
        "mouse-brain": D("adult mouse hippocampus snATAC-seq (2 batches)", "the hippocampus snATAC",
                         "Prox1", "NCBITaxon:10090"),
        "tumor": D("glioblastoma resections, snATAC-seq of 7 tumours", "the GBM snATAC", "EGFR", "SOX2",
                   "MONDO:0018177"),
    },
    {
        "archr": M("ArchR", "ArchR createArrowFiles with minTSS 4 and minFrags 1,000, iterative LSI (4 iterations, "
                   "resolution 0.2-0.8), MACS2 peak calling on pseudobulk replicates per cluster."),
        "signac": M("Signac, MACS2, Seurat", "Signac: TSS enrichment, nucleosome signal below 4, fragments in "
                    "peaks above 3,000; peaks re-called per cell type with MACS2 (callpeak -q 0.01, "
                    "--nomodel --shift -100 --extsize 200), TF-IDF and SVD (LSI 2:30)."),
        "snapatac": M("SnapATAC2", "SnapATAC2 with 500 bp tile matrix, min_tsse 7, spectral embedding, "
                      "scrublet-based doublet removal, MACS3 per cluster."),
    },
    {
        "ok": ok("Median TSS enrichment [[tss:9-16:1]], [[frag:8000-25000]] median fragments per cell, FRiP "
                 "[[frip:0.45-0.7:2]]; [[peaks:120000-260000]] peaks in the union set and clusters matched "
                 "the expected lineages.",
                 "Call peaks per cluster (pseudobulk) so rare cell types get their own peaks."),
        "fail-genome": fail("TSS enrichment was only [[tss:1.2-2.5:1]] for every cell: the fragments were "
                            "aligned to {genome} but the annotation given to the TSS computation was the other "
                            "build, so TSSs fell in the wrong places.",
                            "Check that the genome build of the fragments, the annotation and the blacklist "
                            "match before QC."),
        "fail-nucleosome": fail("Nucleosome signal above 4 for [[pct:40-60]]% of nuclei: over-digestion / "
                                "nuclei lysis during tagmentation; the nucleosome-free fraction was low and "
                                "clustering followed the fragment count.",
                                "Look at the fragment length distribution per sample before analysis; "
                                "over-digested samples cannot be rescued by filtering."),
        "ok-rescue": ok("After matching the build and re-running, TSS enrichment rose to [[tss:8-12:1]] and "
                        "[[n:5000-15000]] cells passed QC.",
                        "Keep the genome build in the fragment file name."),
    },
    "pbmc:archr:ok pbmc:signac:fail-genome pbmc:signac:ok-rescue islet:archr:ok islet:snapatac:ok "
    "mouse-brain:signac:fail-nucleosome tumor:archr:fail-genome tumor:snapatac:ok",
)
for _key, _g in (("pbmc", "GRCh38"), ("islet", "hg38"), ("mouse-brain", "mm10"), ("tumor", "hg19")):
    FAMILIES[-1].data[_key].slots["genome"] = _g
ask("failure", "TSS enrichment was terrible for every cell in the ATAC data", "atac-qc:*:*:fail-genome",
    "atac-qc:*:*:ok-rescue atac-qc:*:*:fail-nucleosome", "atac-qc")
ask("paraphrase", "chromatin accessibility of single islet nuclei, which quality cut-offs did we use",
    "atac-qc:islet", "atac-qc", "")
ask("tool", "ArchR iterative LSI and MACS2 per cluster", "atac-qc:*:archr", "atac-qc", "multiome")

family(
    "multiome", "scATAC-seq, scRNA-seq",
    ("Joint RNA + ATAC analysis of {data}",
     "Link peaks to genes in {short}",
     "Multiome: integrate expression and accessibility for {data}"),
    {
        "pbmc": D("10x Multiome PBMC 10k (public demo plus 2 in-house donors)", "the PBMC Multiome",
                  "CD14", "LYZ", "SPI1"),
        "kidney": D("human kidney Multiome of 5 donors after ischaemia", "the kidney Multiome",
                    "HAVCR1", "VCAM1", "UBERON:0002113"),
        "heart": D("human iPSC-derived cardiomyocyte differentiation Multiome (days 0, 5, 12, 30)",
                   "the cardiac differentiation Multiome", "NKX2-5", "GATA4", "TBX5"),
    },
    {
        "wnn": M("Seurat, Signac", "Signac + Seurat WNN (FindMultiModalNeighbors on PCA 1:50 and LSI 2:50), "
                 "LinkPeaks (distance 500 kb, Pearson with GC-matched background), chromVAR on JASPAR 2022."),
        "archr": M("ArchR", "ArchR with addGeneExpressionMatrix, addCombinedDims (LSI_ATAC + LSI_RNA), "
                   "addPeak2GeneLinks (corCutOff 0.45), motif deviations with chromVAR."),
        "scglue": M("scGLUE, scanpy", "scGLUE guidance graph from promoter and distal overlaps (150 kb), "
                    "joint embedding of the unpaired data, regulatory inference with the GLUE graph."),
    },
    {
        "ok": ok("[[links:18000-45000]] peak-gene links; {tf} motif accessibility tracked {tf} expression across "
                 "clusters (r [[r:0.6-0.85:2]]) and [[n:5-12]] candidate enhancers of {target} were found.",
                 "Validate peak-gene links with an orthogonal resource (eQTL or HiChIP) before naming enhancers."),
        "fail-barcodes": fail("Only [[pct:20-45]]% of ATAC barcodes matched GEX barcodes: the ATAC barcodes were "
                              "used as-is instead of being translated with the Multiome whitelist, so cells "
                              "could not be paired.",
                              "Multiome GEX and ATAC use different barcode lists; translate with the "
                              "Cell Ranger ARC whitelist or use the ARC outputs directly."),
        "fail-gc": fail("Peak-gene links were dominated by GC-rich promoters; the background was not GC-matched "
                        "and [[pct:30-50]]% of links vanished with a proper background.",
                        "Use GC-matched background peaks when correlating accessibility with expression."),
    },
    "pbmc:wnn:ok pbmc:archr:fail-barcodes kidney:wnn:ok kidney:archr:ok heart:scglue:ok heart:wnn:fail-gc "
    "kidney:scglue:fail-barcodes",
)
for _key, _tf, _t in (("pbmc", "SPI1", "LYZ"), ("kidney", "NFKB1", "VCAM1"), ("heart", "GATA4", "NPPA")):
    FAMILIES[-1].data[_key].slots.update(tf=_tf, target=_t)
ask("failure", "ATAC and gene expression barcodes did not match in the multiome run",
    "multiome:*:*:fail-barcodes", "multiome", "")
ask("alias", "PU.1 motif accessibility versus expression in monocytes", "multiome:pbmc", "multiome",
    "atac-qc:pbmc")
ask("paraphrase", "linking distal regulatory elements to target genes using paired single-cell chromatin and RNA",
    "multiome:*:*:ok", "multiome", "")

family(
    "chip", "epigenomics",
    ("Call peaks for {data}",
     "Process {short} and find differential binding",
     "Profile {data} genome-wide"),
    {
        "h3k27ac": D("H3K27ac ChIP-seq in 6 primary AML samples and 3 CD34+ controls", "the H3K27ac AML ChIP",
                     "H3K27ac", "MYB", "MONDO:0018874"),
        "h3k27me3": D("H3K27me3 CUT&Tag in mouse embryonic stem cells, EED knockout vs wild type",
                      "the H3K27me3 CUT&Tag", "H3K27me3", "EED", "NCBITaxon:10090"),
        "ctcf": D("CTCF CUT&RUN in HCT116 treated with auxin (CTCF-AID degron)", "the CTCF CUT&RUN",
                  "CTCF", "SO:0001747"),
        "myc": D("MYC ChIP-seq in P493-6 B cells at high and low MYC", "the MYC ChIP", "MYC"),
    },
    {
        "macs2": M("MACS2, Bowtie2, DiffBind", "Bowtie2 (--very-sensitive), duplicates removed with Picard, "
                   "MACS2 callpeak -q 0.01 in narrow mode against input, DiffBind with DESeq2."),
        "seacr": M("SEACR, Bowtie2", "Bowtie2 (--end-to-end --very-sensitive --no-mixed -I 10 -X 700), spike-in "
                   "E. coli normalisation, SEACR stringent mode with IgG control."),
        "broad": M("MACS2, Bowtie2, csaw", "MACS2 --broad (broad-cutoff 0.1), csaw windows of 2 kb for "
                   "differential enrichment with TMM on background bins."),
    },
    {
        "ok": ok("[[n:24000-61000]] peaks, FRiP [[frip:0.15-0.4:2]], IDR-consistent across replicates; "
                 "[[d:800-3000]] differential regions with {gene} among the strongest.",
                 "Check FRiP and replicate concordance (IDR) before differential analysis."),
        "fail-narrow": fail("Calling a broad histone mark in narrow mode fragmented domains into thousands of "
                            "small peaks; differential analysis gave [[n:30-90]] regions that did not agree with "
                            "the browser tracks.",
                            "Call broad marks (H3K27me3, H3K36me3, H3K9me3) in broad mode or with window-based "
                            "methods."),
        "fail-norm": fail("Standard library-size normalisation hid a global loss of signal after "
                          "{perturbation}: almost nothing was differential although the tracks showed a global "
                          "drop of [[drop:50-80]]%.",
                          "Use spike-in normalisation when a perturbation changes the total amount of the mark "
                          "or factor."),
    },
    "h3k27ac:macs2:ok h3k27me3:macs2:fail-narrow h3k27me3:broad:ok h3k27me3:broad:fail-norm ctcf:seacr:ok "
    "ctcf:macs2:fail-norm myc:macs2:ok myc:seacr:ok",
)
for _key, _g, _p in (("h3k27ac", "MYB", "treatment"), ("h3k27me3", "Hoxa9", "EED knockout"),
                     ("ctcf", "CTCF", "auxin-induced CTCF degradation"), ("myc", "NCL", "MYC shutdown")):
    FAMILIES[-1].data[_key].slots.update(gene=_g, perturbation=_p)
ask("failure", "differential binding found nothing even though the whole signal dropped after degradation",
    "chip:*:*:fail-norm", "chip", "")
ask("paraphrase", "polycomb mark profiling in ES cells lacking a PRC2 core subunit", "chip:h3k27me3",
    "chip", "")
ask("tool", "SEACR stringent mode with spike-in", "chip:*:seacr", "chip", "")

family(
    "methylation", "epigenomics",
    ("Differential methylation in {data}",
     "Call DMRs for {short}",
     "Analyse DNA methylation of {data}"),
    {
        "wgbs": D("whole-genome bisulfite sequencing of 8 colorectal tumours and matched normal", "the CRC WGBS",
                  "MLH1", "MONDO:0005575"),
        "epic": D("Illumina EPIC arrays of whole blood from 640 smokers and non-smokers", "the EPIC blood cohort",
                  "AHRR", "cg05575921"),
        "rrbs": D("RRBS of mouse liver from aged (24 months) vs young (3 months) mice", "the ageing RRBS",
                  "NCBITaxon:10090"),
    },
    {
        "bismark": M("Bismark, methylKit, Trim Galore", "Trim Galore (--rrbs where needed), Bismark with "
                     "Bowtie2, methylation extractor with --ignore_r2 2, methylKit DMRs in 1 kb tiles, "
                     "min coverage 10."),
        "minfi": M("minfi, limma", "minfi preprocessNoob + BMIQ, detection p below 0.01, cell-type proportions "
                   "estimated (Houseman) and included in limma with age and sex; DMRs with DMRcate."),
        "dss": M("DSS, Bismark", "Bismark alignment then DSS DMLtest with smoothing (span 500), callDMR with "
                 "delta 0.1 and p 1e-5."),
    },
    {
        "ok": ok("[[n:2000-14000]] DMRs; {gene} promoter hypermethylation in [[k:2-6]] samples; global "
                 "methylation [[g:3-9]]% lower in the case group.",
                 "Check bisulfite conversion (non-CpG methylation below 1%) before calling DMRs."),
        "fail-celltype": fail("Top differentially methylated CpGs were cell-composition markers: cases had "
                              "[[pct:8-15]]% more neutrophils, and after adjusting for estimated proportions "
                              "[[gone:60-80]]% of hits disappeared.",
                              "Adjust blood methylation analyses for estimated cell-type proportions."),
        "fail-conversion": fail("Non-CpG methylation was [[ch:3-6:1]]% in two libraries, i.e. incomplete "
                                "bisulfite conversion; their apparent hypermethylation drove most DMRs.",
                                "Drop libraries with non-CpG methylation above 1-2%: incomplete conversion "
                                "looks like methylation."),
    },
    "wgbs:bismark:ok wgbs:dss:fail-conversion epic:minfi:ok epic:minfi:fail-celltype rrbs:bismark:ok "
    "rrbs:dss:ok wgbs:dss:ok",
)
for _key, _g in (("wgbs", "MLH1"), ("epic", "AHRR"), ("rrbs", "Elovl2")):
    FAMILIES[-1].data[_key].slots["gene"] = _g
ask("failure", "methylation differences that turned out to be neutrophil proportions",
    "methylation:*:*:fail-celltype", "methylation:epic", "methylation")
ask("identifier", "cg05575921 smoking CpG", "methylation:epic", "methylation", "")
ask("paraphrase", "incomplete bisulfite conversion faking hypermethylation", "methylation:*:*:fail-conversion",
    "methylation", "")


# =============================================================================================
# bulk RNA-seq
# =============================================================================================

family(
    "bulk-quant", "bulk RNA-seq",
    ("Align and quantify {data}",
     "Gene-level counts for {short}",
     "Run the RNA-seq pre-processing for {data}"),
    {
        "huvec": D("HUVEC under hypoxia vs normoxia (3 donors, TruSeq stranded, 2x75)", "the HUVEC hypoxia libraries",
                   "VEGFA", "HIF1A"),
        "tcga": D("120 TCGA-BRCA tumours re-quantified from FASTQ", "the TCGA-BRCA subset", "ERBB2", "ESR1",
                  "MONDO:0007254"),
        "ffpe": D("FFPE colon biopsies (RNA Exome capture, DV200 30-70%)", "the FFPE biopsies", "MONDO:0005575"),
        "mouse": D("mouse heart after transverse aortic constriction (n=5 per group)", "the TAC hearts",
                   "Nppa", "Myh7", "NCBITaxon:10090"),
    },
    {
        "star": M("STAR, featureCounts, RSeQC", "STAR 2.7.10 two-pass against GENCODE v44, RSeQC "
                  "infer_experiment for the library type, featureCounts -s 2 -p --countReadPairs."),
        "star-s1": M("STAR, featureCounts", "STAR 2.7.10 against GENCODE v44, featureCounts -s 1 -p "
                     "--countReadPairs as in the sample sheet."),
        "salmon": M("salmon, tximport", "salmon quant with selective alignment against a decoy-aware GENCODE "
                    "index, --gcBias --seqBias, libType A, tximport to gene level."),
        "rsem": M("RSEM, STAR", "RSEM with STAR (--estimate-rspd), expected counts rounded for DESeq2."),
    },
    {
        "ok": ok("[[map:84-94]]% uniquely mapped, [[assigned:68-82]]% assigned to genes; library type "
                 "confirmed as reverse stranded; PCA separated the groups on PC1 ([[pc:35-60]]% variance).",
                 "Infer strandedness from the data (RSeQC or salmon libType A) instead of trusting the "
                 "sample sheet."),
        "fail-strand": fail("Only [[assigned:35-48]]% of reads were assigned: the library was reverse stranded "
                            "(dUTP) but counting used -s 1, so sense reads were discarded; re-counted with "
                            "-s 2 the assignment rose to [[fixed:70-80]]%.",
                            "Infer strandedness with RSeQC infer_experiment before counting."),
        "fail-rrna": fail("[[rrna:25-45]]% of reads were rRNA (degraded FFPE input, DV200 below 30% in "
                          "[[k:3-8]] samples); those samples had 3' bias and clustered by DV200, not biology.",
                          "Check rRNA fraction and gene-body coverage; exclude or model DV200 for degraded FFPE "
                          "samples."),
        "ok-salmon": ok("Mapping rate [[map:82-91]]%; inferred library type ISR; gene-level counts agreed "
                        "with STAR/featureCounts (Spearman [[r:0.95-0.99:2]]).",
                        "Use a decoy-aware salmon index to avoid spurious mapping of intronic reads."),
    },
    "huvec:star-s1:fail-strand huvec:star:ok tcga:salmon:ok-salmon tcga:rsem:ok ffpe:star:fail-rrna "
    "ffpe:salmon:fail-rrna mouse:salmon:ok-salmon mouse:star-s1:fail-strand mouse:star:ok",
)
ask("failure", "half the reads were not assigned to genes by featureCounts", "bulk-quant:*:*:fail-strand",
    "bulk-quant:*:star|star-s1", "bulk-quant")
ask("paraphrase", "library orientation was wrong in the counting step", "bulk-quant:*:*:fail-strand",
    "bulk-quant:*:*:ok", "")
ask("tool", "salmon selective alignment with decoys", "bulk-quant:*:salmon", "bulk-quant", "")

family(
    "bulk-de", "bulk RNA-seq",
    ("Differential expression for {data}",
     "Which genes change in {short}",
     "DE analysis of {data}"),
    {
        "huvec": D("HUVEC hypoxia vs normoxia (3 donors x 2 conditions)", "the HUVEC hypoxia experiment",
                   "VEGFA", "HIF1A", "CA9", "GO:0001666", "ENSG00000112715"),
        "tcell": D("activated vs resting CD4 T cells from 6 donors after PD-1 blockade in vitro",
                   "the PD-1 blockade T cells", "PDCD1", "IFNG", "IL2"),
        "ko": D("MCF7 with ESR1 knockout vs non-targeting (2 clones, 3 replicates)", "the ESR1 knockout MCF7",
                "ESR1", "GREB1", "PGR", "ENSG00000091831"),
        "mouse": D("TAC vs sham mouse hearts at 4 weeks (5 vs 5)", "the TAC hearts", "Nppa", "Nppb", "Postn"),
        "timecourse": D("LPS time course of human monocyte-derived macrophages (0, 1, 4, 24 h, 4 donors)",
                        "the LPS time course", "TNF", "IL6", "IL1B"),
    },
    {
        "deseq2": M("DESeq2", "DESeq2 with ~ donor + condition, independent filtering, lfcShrink (apeglm), "
                    "FDR 0.05 and |log2FC| above 1."),
        "limma": M("limma, edgeR", "edgeR filterByExpr, TMM, limma-voom with duplicateCorrelation for donor, "
                   "treat with log2FC threshold 1."),
        "lrt": M("DESeq2", "DESeq2 likelihood ratio test (full ~ donor + time, reduced ~ donor) for genes changing "
                 "over time, then clustering of patterns with DEGreport."),
    },
    {
        "ok": ok("[[n:600-3200]] genes at FDR 0.05; {gene} up [[fc:2.5-9.0:1]]-fold; the donor term "
                 "absorbed [[var:15-40]]% of variance that would otherwise have gone to residuals.",
                 "Put donor (or batch) in the design when samples are paired."),
        "fail-confound": fail("Batch was completely confounded with condition (all treated samples sequenced "
                              "in run 2): [[n:5000-8000]] 'DE' genes, dominated by GC-content and 3' bias "
                              "effects; the comparison could not be rescued computationally.",
                              "Design experiments so that batch is not confounded with condition; no "
                              "covariate can separate them afterwards."),
        "fail-outlier": fail("One sample was a swap (XIST expressed in a male donor); with it the design "
                             "was unbalanced and {gene} was not significant; after removal [[n:400-1500]] DE genes.",
                             "Check sex genes (XIST, RPS4Y1) and sample correlation for swaps before DE."),
        "ok-time": ok("[[n:1500-4000]] genes changed over time in [[k:5-8]] patterns; early response ({gene}) "
                      "peaked at 1 h and interferon genes at 24 h.",
                      "Use a likelihood ratio test for time courses instead of pairwise comparisons."),
    },
    "huvec:deseq2:ok tcell:limma:ok tcell:deseq2:fail-outlier ko:deseq2:ok ko:limma:fail-confound "
    "mouse:deseq2:ok mouse:limma:ok timecourse:lrt:ok-time timecourse:deseq2:fail-confound",
)
for _key, _g in (("huvec", "VEGFA"), ("tcell", "IFNG"), ("ko", "GREB1"), ("mouse", "Nppa"),
                 ("timecourse", "TNF")):
    FAMILIES[-1].data[_key].slots["gene"] = _g
ask("alias", "HIF-1 alpha targets induced by low oxygen in endothelial cells",
    "bulk-de:huvec bulk-quant:huvec:*:+", "bulk-quant:huvec", "bulk-de gsea:hypoxia")
ask("alias", "effect of PD-1 blockade on IFN-gamma in CD4 T cells", "bulk-de:tcell", "bulk-de", "")
ask("failure", "all treated samples were sequenced on a different run, what happened to the DE",
    "bulk-de:*:*:fail-confound", "bulk-de", "")
ask("failure", "sample swap detected by XIST", "bulk-de:*:*:fail-outlier", "bulk-de", "")
ask("paraphrase", "genes with dynamic response across hours after endotoxin stimulation",
    "bulk-de:timecourse:lrt", "bulk-de:timecourse", "bulk-de")

family(
    "gsea", "bulk RNA-seq",
    ("Pathway enrichment of {data}",
     "Gene set analysis for {short}",
     "Which pathways are affected in {data}"),
    {
        "hypoxia": D("the HUVEC hypoxia DE results", "the hypoxia signature", "GO:0001666", "VEGFA"),
        "tnbc": D("TNBC tumours vs adjacent normal (TCGA, 115 vs 113)", "the TNBC comparison", "MONDO:0005494",
                  "GO:0007049"),
        "ko": D("the ESR1 knockout DE results in MCF7", "the ESR1 knockout DE", "ESR1", "GO:0030520"),
        "aging": D("ageing mouse kidney proteome-matched RNA-seq (3, 12, 24 months)", "the ageing kidney",
                   "GO:0006954", "NCBITaxon:10090"),
    },
    {
        "fgsea": M("fgsea, msigdbr", "fgsea on genes ranked by the DESeq2 Wald statistic (not by p-value), "
                   "MSigDB Hallmark and GO:BP (size 15-500), 100,000 permutations."),
        "ora": M("clusterProfiler", "clusterProfiler enrichGO on the DE genes (FDR 0.05, |log2FC| above 1) "
                 "against GO:BP with the expressed genes as the universe."),
        "gsva": M("GSVA, limma", "GSVA scores per sample for Hallmark sets, then limma on the scores."),
    },
    {
        "ok": ok("{pathway} was the top set (NES [[nes:1.9-3.2:2]], padj [[p:1-9]]e-[[e:5-12]]); "
                 "[[n:12-40]] sets at FDR 0.05.",
                 "Rank by a signed statistic for GSEA; use the expressed genes as the universe for ORA."),
        "fail-universe": fail("Over-representation against the whole genome as background reported "
                              "[[n:200-400]] 'enriched' GO terms dominated by tissue-specific expression; with the "
                              "expressed genes as universe only [[m:15-40]] remained.",
                              "Always set the universe to the genes that could have been detected."),
        "fail-ids": fail("Mapping Ensembl ids to symbols lost [[pct:15-25]]% of genes (retired ids, "
                         "one-to-many mappings), including several leading-edge genes; results shifted "
                         "between runs with different annotation versions.",
                         "Keep Ensembl ids through the analysis and map with the same annotation release as "
                         "the quantification."),
    },
    "hypoxia:fgsea:ok hypoxia:ora:fail-universe tnbc:fgsea:ok tnbc:gsva:ok ko:fgsea:fail-ids ko:ora:ok "
    "aging:fgsea:ok aging:ora:fail-universe",
)
for _key, _p in (("hypoxia", "HALLMARK_HYPOXIA"), ("tnbc", "HALLMARK_E2F_TARGETS"),
                 ("ko", "HALLMARK_ESTROGEN_RESPONSE_EARLY"), ("aging", "HALLMARK_INFLAMMATORY_RESPONSE")):
    FAMILIES[-1].data[_key].slots["pathway"] = _p
ask("failure", "GO enrichment gave hundreds of terms because of the wrong background",
    "gsea:*:ora:fail-universe", "gsea:*:ora", "gsea")
ask("identifier", "HALLMARK_ESTROGEN_RESPONSE_EARLY in the knockout", "gsea:ko", "gsea", "bulk-de:ko")
ask("paraphrase", "lost genes when converting gene identifiers before enrichment", "gsea:*:*:fail-ids",
    "gsea", "")

family(
    "splicing", "bulk RNA-seq",
    ("Alternative splicing analysis of {data}",
     "Find differential exon usage in {short}",
     "Splicing changes in {data}"),
    {
        "sf3b1": D("CLL samples with and without SF3B1 K700E (10 vs 10)", "the SF3B1 CLL cohort", "SF3B1 K700E",
                   "MONDO:0004948"),
        "kd": D("HepG2 with RBFOX2 knockdown (ENCODE shRNA, 2 replicates)", "the RBFOX2 knockdown",
                "RBFOX2", "ENCSR767LLP"),
        "neuron": D("iPSC motor neurons with TDP-43 knockdown", "the TDP-43 knockdown neurons",
                    "TARDBP", "STMN2", "UNC13A"),
    },
    {
        "rmats": M("rMATS, STAR", "rMATS 4.1 (--readLength 101 --variable-read-length, JCEC counts), FDR "
                   "0.05 and |dPSI| above 0.1."),
        "leafcutter": M("LeafCutter, regtools", "regtools junction extraction, LeafCutter clustering "
                        "(min 50 reads per cluster), differential splicing with 3 samples per group minimum."),
        "majiq": M("MAJIQ", "MAJIQ build and deltapsi with the GENCODE annotation, P(|dPSI| > 0.2) above 0.95."),
    },
    {
        "ok": ok("[[n:300-1200]] significant events; {event} was the strongest (dPSI [[d:0.2-0.6:2]]) and "
                 "validated by RT-PCR.",
                 "Validate the top events by RT-PCR before interpretation."),
        "fail-readlen": fail("rMATS stopped with 'read length mismatch': trimmed reads had variable lengths and "
                             "--variable-read-length was not set; after fixing, junction counts were still low "
                             "(50 bp reads).",
                             "Set --variable-read-length for trimmed reads and prefer 100+ bp reads for "
                             "splicing."),
        "fail-cryptic": fail("Annotation-based counting missed the cryptic exon in {gene}, because it is not "
                             "in GENCODE; only an annotation-free method found it.",
                             "Use an annotation-free junction method (LeafCutter, MAJIQ de novo) to find "
                             "cryptic exons."),
    },
    "sf3b1:rmats:ok sf3b1:leafcutter:ok kd:rmats:fail-readlen kd:majiq:ok neuron:rmats:fail-cryptic "
    "neuron:leafcutter:ok neuron:majiq:ok",
)
for _key, _e, _g in (("sf3b1", "cryptic 3' splice site in MAP3K7", "MAP3K7"),
                     ("kd", "exon skipping in ENAH", "ENAH"), ("neuron", "the cryptic exon in STMN2", "STMN2")):
    FAMILIES[-1].data[_key].slots.update(event=_e, gene=_g)
ask("alias", "TDP-43 loss and cryptic exons in stathmin-2", "splicing:neuron", "splicing", "")
ask("tool", "rMATS read length error", "splicing:*:rmats:fail-readlen", "splicing:*:rmats", "splicing")


# =============================================================================================
# CRISPR screens
# =============================================================================================

family(
    "crispr-mageck", "CRISPR-screen",
    ("Genome-wide knockout screen: {question}",
     "Pooled CRISPR screen analysis for {short}",
     "Call hits from the {short} screen"),
    {
        "sotorasib": D("KRAS G12C NCI-H358 cells treated with sotorasib (Brunello, 14 days)",
                       "sotorasib / H358", "KRAS G12C", "PTPN11", "SOS1", "KEAP1", "ENSG00000133703",
                       question="which knockouts sensitise KRAS G12C NCI-H358 cells to sotorasib"),
        "olaparib": D("RPE1-hTERT TP53-/- cells under olaparib (TKOv3, 21 days)", "olaparib / RPE1",
                      "TP53", "RNASEH2B", "BRCA1",
                      question="which gene losses cause PARP inhibitor sensitivity in RPE1 cells"),
        "tcell": D("primary human CD8 T cells restimulated with anti-CD3/CD28 (Brunello, FACS sort on IFNG)",
                   "the T cell IFNG sort", "IFNG", "CD8A", "PDCD1",
                   question="which genes limit IFN-gamma production in primary CD8 T cells"),
        "virus": D("A549-ACE2 cells infected with SARS-CoV-2 (GeCKO v2, survival)", "the SARS-CoV-2 survival",
                   "ACE2", "TMEM41B", "CTSL",
                   question="host factors required for SARS-CoV-2 infection"),
        "ess": D("8 AML cell lines, essentiality over 21 days (Brunello)", "the AML essentiality panel",
                 "MYB", "SPI1", "MONDO:0018874",
                 question="AML-specific dependencies"),
    },
    {
        "rra": M("MAGeCK, Bowtie2", "MAGeCK count on demultiplexed FASTQ, MAGeCK test (RRA) with median "
                 "normalisation against day 0 / DMSO, FDR 0.05, control sgRNAs for the null."),
        "mle": M("MAGeCK", "MAGeCK MLE with a design matrix of time and treatment, normalised to non-targeting "
                 "controls, beta scores compared between arms."),
        "both": M("MAGeCK, MAGeCKFlute", "MAGeCK RRA and MLE, MAGeCKFlute for quality control, cell-cycle "
                  "normalisation of beta scores and 9-square plots of treatment vs control."),
    },
    {
        "ok": ok("Gini index [[gini:0.05-0.12:2]], mapping [[map:78-90]]%; [[n:15-60]] genes at FDR 0.05 with "
                 "{hits} on top; the known positive controls ranked in the top 1%.",
                 "Check reads per guide and the Gini index at every time point before calling hits."),
        "fail-bottleneck": fail("Representation collapsed: only [[cov:40-120]]x coverage survived the "
                                "transduction, [[zero:18-35]]% of sgRNAs had zero reads at the endpoint and the "
                                "Gini index was [[gini:0.3-0.5:2]]; hits were dominated by random drift and no "
                                "gene passed FDR 0.25.",
                                "Keep at least 300-500x representation at transduction and every passage; "
                                "a bottleneck cannot be fixed in analysis."),
        "fail-plasmid": fail("The plasmid library was skewed ([[skew:10-25]]-fold between the 10th and 90th "
                             "percentile guides) and the day-0 sample was missing, so depletion of low-abundance "
                             "guides looked like essentiality.",
                             "Sequence the plasmid and day 0; compare the endpoint to day 0, not to the "
                             "plasmid alone."),
        "ok-mle": ok("MLE beta scores separated treatment-specific hits ({hits}) from general fitness genes; "
                     "[[n:20-45]] treatment-specific genes at FDR 0.05.",
                     "Use MLE with a design matrix when comparing several conditions and time points."),
        "fail-copy": fail("Top depleted genes clustered in amplified regions ({amp}); cutting in amplicons "
                          "kills cells regardless of the gene (copy-number effect). [[k:8-20]] of the top 30 "
                          "hits were false positives.",
                          "Correct CRISPR knockout screens for copy number (CRISPRcleanR, Chronos) in "
                          "aneuploid lines."),
    },
    "sotorasib:rra:ok sotorasib:mle:ok-mle olaparib:rra:ok olaparib:both:ok-mle tcell:rra:fail-bottleneck "
    "tcell:rra:ok virus:rra:fail-plasmid virus:rra:ok ess:both:fail-copy ess:mle:ok-mle",
)
for _key, _h, _a in (("sotorasib", "PTPN11, SOS1 and KEAP1", "12p12"), ("olaparib", "RNASEH2B and BRCA1", "none"),
                     ("tcell", "CBLB and RNF7 (loss raised IFNG)", "none"), ("virus", "ACE2, CTSL and TMEM41B", "none"),
                     ("ess", "MYB and SPI1", "the MYC locus on 8q24 and 11q23")):
    FAMILIES[-1].data[_key].slots.update(hits=_h, amp=_a)
ask("paraphrase", "which knockouts made KRAS-mutant lung cancer cells more sensitive to the G12C inhibitor",
    "crispr-mageck:sotorasib", "crispr-mageck", "")
ask("failure", "screen coverage dropped and hits were just noise", "crispr-mageck:*:*:fail-bottleneck",
    "crispr-mageck:*:*:-", "crispr-mageck")
ask("tool", "MAGeCK MLE with a design matrix", "crispr-mageck:*:mle|both",
    "crispr-mageck", "")
ask("failure", "amplified regions showing up as essential genes in the knockout screen",
    "crispr-mageck:*:*:fail-copy", "crispr-mageck:ess", "crispr-mageck")
ask("alias", "PARP inhibitor synthetic lethality screen in p53 null RPE1", "crispr-mageck:olaparib",
    "crispr-mageck", "")
ask("paraphrase", "genome-wide screen for host dependency factors of coronavirus", "crispr-mageck:virus",
    "crispr-mageck", "")

family(
    "perturbseq", "CRISPR-screen, scRNA-seq",
    ("Perturb-seq analysis of {data}",
     "Single-cell CRISPR screen: assign guides and call perturbation effects in {short}",
     "Analyse the pooled single-cell knockout screen {short}"),
    {
        "k562": D("K562 CRISPRi Perturb-seq of 600 essential genes (10x 3' with feature barcoding)",
                  "the K562 CRISPRi Perturb-seq", "GATA1", "TAL1"),
        "tcell": D("primary CD4 T cells, CROP-seq of 70 transcription factors", "the T cell CROP-seq",
                   "FOXP3", "IL2RA", "TBX21"),
        "ips": D("iPSC-derived neurons, CRISPRi of 184 autism risk genes", "the neuron CRISPRi screen",
                 "CHD8", "SCN2A", "MONDO:0005260"),
    },
    {
        "mixscape": M("Seurat, mixscape", "Guide calling with a Poisson-Gaussian mixture on guide UMIs, then "
                      "mixscape (CalcPerturbSig with 20 neighbours, RunMixscape) to separate perturbed from "
                      "escaping cells."),
        "sceptre": M("SCEPTRE", "SCEPTRE with the mixture guide assignment, conditional resampling against "
                     "non-targeting controls, calibration check on negative controls."),
        "pertpy": M("pertpy, scanpy", "pertpy guide assignment (threshold 5 UMIs), Augur to rank perturbation "
                    "strength, energy distance tests."),
    },
    {
        "ok": ok("[[assigned:62-81]]% of cells had exactly one guide; [[kd:80-95]]% median knockdown of targets; "
                 "[[n:40-150]] perturbations with significant transcriptional effects, {top} the strongest.",
                 "Check on-target knockdown per guide before interpreting downstream effects."),
        "fail-threshold": fail("A fixed 1-UMI guide threshold assigned ambient guide reads: [[multi:30-45]]% of "
                               "cells had two or more guides and effects were diluted; negative-control "
                               "calibration failed (inflated p-values).",
                               "Assign guides with a mixture model or a per-guide threshold; a fixed low UMI "
                               "cut picks up ambient guide reads."),
        "fail-escape": fail("[[esc:30-55]]% of cells carrying a targeting guide showed no knockdown (escapers), "
                            "masking effects of {top}; mixscape classification was needed.",
                            "Separate perturbed cells from escapers before testing."),
    },
    "k562:mixscape:ok k562:sceptre:ok tcell:pertpy:fail-threshold tcell:sceptre:ok ips:mixscape:fail-escape "
    "ips:sceptre:ok ips:pertpy:fail-threshold",
)
for _key, _t in (("k562", "GATA1"), ("tcell", "FOXP3"), ("ips", "CHD8")):
    FAMILIES[-1].data[_key].slots["top"] = _t
ask("failure", "cells assigned several guides because of ambient guide reads", "perturbseq:*:*:fail-threshold",
    "perturbseq", "")
ask("tool", "SCEPTRE calibration on negative controls", "perturbseq:*:sceptre", "perturbseq", "")
ask("paraphrase", "knocking down autism risk genes in neurons with single-cell readout", "perturbseq:ips",
    "perturbseq", "")

family(
    "crispr-edit", "CRISPR-screen, genome editing",
    ("Quantify editing outcomes for {data}",
     "Check knockout / base editing efficiency in {short}",
     "Amplicon sequencing analysis of {data}"),
    {
        "be": D("ABE8e base editing of the HBG1/2 promoters in CD34+ cells (6 guides)", "the HBG base editing",
                "HBG1", "HBG2", "BCL11A"),
        "ko": D("Cas9 RNP knockout of PDCD1 in primary T cells (4 donors)", "the PDCD1 knockout T cells",
                "PDCD1", "TRAC"),
        "hdr": D("HDR knock-in of a GFP tag at the C-terminus of LMNB1 in iPSCs", "the LMNB1-GFP knock-in",
                 "LMNB1"),
    },
    {
        "crispresso": M("CRISPResso2", "CRISPResso2 on merged amplicon reads (quantification window 10 bp, "
                        "--base_editor_output where relevant, min average read quality 30)."),
        "ice": M("ICE, Sanger", "Sanger traces of edited vs mock pools analysed with ICE (Synthego)."),
    },
    {
        "ok": ok("[[eff:65-92]]% editing at the target; indel / bystander rate [[by:1-8:1]]%; protein loss "
                 "confirmed by flow ([[flow:80-95]]% negative).",
                 "Confirm genotype editing with a protein-level readout."),
        "fail-large": fail("Amplicon analysis reported [[eff:85-95]]% editing, but [[lg:10-25]]% of alleles "
                           "carried large deletions beyond the amplicon that short-read PCR could not see; "
                           "long-read sequencing showed it.",
                           "Short amplicons miss large deletions; check with long-range PCR or long reads."),
        "fail-hdr": fail("Only [[hdr:2-6:1]]% precise knock-in; most edited alleles were NHEJ indels. "
                         "HDR enhancer was omitted and cells were not synchronised.",
                         "Use an NHEJ inhibitor or cold shock and a ssODN / AAV donor to raise HDR."),
    },
    "be:crispresso:ok ko:crispresso:ok ko:ice:fail-large hdr:crispresso:fail-hdr hdr:ice:ok be:ice:ok",
)
ask("failure", "editing efficiency looked great but there were big deletions we missed",
    "crispr-edit:*:*:fail-large", "crispr-edit", "")
ask("tool", "CRISPResso2 base editor output bystander edits", "crispr-edit:*:crispresso", "crispr-edit", "")


# =============================================================================================
# proteomics
# =============================================================================================

family(
    "prot-dda", "proteomics",
    ("Label-free quantification of {data}",
     "LFQ proteomics for {short}",
     "Quantify proteome changes in {data}"),
    {
        "liver": D("mouse liver after 8 weeks of high-fat diet (n=6 per group), DDA on an Orbitrap Exploris",
                   "the HFD liver", "UP000000589", "CD36", "GO:0019395"),
        "csf": D("cerebrospinal fluid of 40 ALS patients and 40 controls (DDA, 2 h gradients)", "the ALS CSF",
                 "NEFL", "CHIT1", "MONDO:0004976"),
        "ip": D("affinity purification of FLAG-tagged TP53 in HCT116 under nutlin (AP-MS, 4 replicates)",
                "the p53 AP-MS", "TP53", "MDM2", "P04637", "ENSG00000141510"),
    },
    {
        "maxquant": M("MaxQuant, Perseus", "MaxQuant 2.4 LFQ with match-between-runs against the UniProt "
                      "reference proteome, 1% PSM and protein FDR; Perseus: log2, 70% valid values per group, "
                      "imputation (width 0.3, down-shift 1.8), Welch t-test with permutation FDR 0.05."),
        "fragpipe": M("FragPipe, MSstats", "FragPipe (MSFragger, Philosopher, IonQuant with MBR), MSstats "
                      "summarisation (TMP) and group comparison."),
        "saint": M("MaxQuant, SAINTexpress", "MaxQuant LFQ, SAINTexpress against 8 control IPs and the "
                   "CRAPome, BFDR 0.01."),
    },
    {
        "ok": ok("[[n:3800-5600]] protein groups quantified, [[de:120-480]] changed at FDR 5%; {top}.",
                 "Filter for valid values per group before imputation."),
        "fail-contam": fail("The top 'changed' proteins were keratins, trypsin and serum albumin: the "
                            "contaminant FASTA was not included and reverse hits were not filtered.",
                            "Always search with the contaminant database and remove contaminants and reverse "
                            "hits before statistics."),
        "fail-mbr": fail("Match-between-runs transferred identifications across two gradient lengths "
                         "(1 h and 2 h runs mixed): [[pct:15-30]]% of quantified values came from transfers "
                         "and several group-specific proteins were artefacts.",
                         "Only use match-between-runs within comparable chromatography; check the share of "
                         "transferred identifications."),
        "ok-interactors": ok("[[n:12-30]] high-confidence interactors (BFDR below 0.01) including {top}; "
                             "[[k:4-9]] were known from BioGRID.",
                             "Score AP-MS against many negative controls (SAINT/CRAPome), not one."),
    },
    "liver:maxquant:ok liver:maxquant:fail-contam csf:fragpipe:ok csf:maxquant:fail-mbr ip:saint:ok-interactors "
    "ip:maxquant:fail-contam liver:fragpipe:ok",
)
for _key, _t in (("liver", "CD36 up 3.1-fold and fatty acid oxidation (GO:0019395) the top process"),
                 ("csf", "NEFL and CHIT1 up in ALS"), ("ip", "MDM2, USP7 and PPM1D")):
    FAMILIES[-1].data[_key].slots["top"] = _t
ask("failure", "keratin and trypsin were our top hits in the proteomics", "prot-dda:*:*:fail-contam",
    "prot-dda", "")
ask("alias", "interaction partners of p53 pulled down under nutlin", "prot-dda:ip", "prot-dda", "")
ask("paraphrase", "protein abundance in cerebrospinal fluid of motor neuron disease patients",
    "prot-dda:csf", "prot-dda", "prot-dia:plasma")

family(
    "prot-dia", "proteomics",
    ("DIA proteomics of {data}",
     "Data-independent acquisition analysis for {short}",
     "Process the DIA runs of {data}"),
    {
        "plasma": D("plasma of 400 sepsis patients (DIA, 30 min gradients, Evosep)", "the sepsis plasma",
                    "CRP", "SAA1", "MONDO:0100241"),
        "tissue": D("FFPE lung adenocarcinoma tissue punches (DIA, 60 samples)", "the LUAD FFPE",
                    "NAPSA", "SFTPB", "MONDO:0005061"),
        "cells": D("HeLa single-cell proteomics (plexDIA, 200 cells)", "the single-cell plexDIA"),
    },
    {
        "diann": M("DIA-NN", "DIA-NN 1.8.1 library-free (in silico library from UniProt human, 1 missed "
                   "cleavage), MBR, 1% precursor and protein FDR, RT-dependent normalisation."),
        "spectronaut": M("Spectronaut", "Spectronaut 18 directDIA+, Q-value 0.01, cross-run normalisation, "
                         "MaxLFQ-style protein roll-up."),
    },
    {
        "ok": ok("[[n:600-8000]] protein groups; median CV [[cv:8-18]]%; {top}.",
                 "Track CVs of a pooled QC sample across the batch."),
        "fail-depletion": fail("Without depletion, the 14 most abundant proteins took [[pct:85-95]]% of the "
                               "signal and only [[n:300-450]] proteins were quantified; the planned low-abundance "
                               "biomarkers were not detected.",
                               "Deplete or enrich (nanoparticles, perchloric acid) plasma before DIA if "
                               "low-abundance proteins matter."),
        "fail-fdr": fail("Library-free search of [[runs:150-250]] runs with MBR inflated identifications: "
                         "the entrapment estimate of FDR was [[fdr:3-6:1]]% instead of 1%.",
                         "Check FDR with an entrapment database for large library-free DIA experiments."),
    },
    "plasma:diann:ok plasma:spectronaut:fail-depletion tissue:diann:ok tissue:spectronaut:ok "
    "cells:diann:fail-fdr cells:diann:ok",
)
for _key, _t in (("plasma", "CRP and SAA1 tracked severity"), ("tissue", "NAPSA separated subtypes"),
                 ("cells", "cell-cycle proteins separated G1 and G2/M cells")):
    FAMILIES[-1].data[_key].slots["top"] = _t
ask("failure", "too few proteins in plasma DIA, albumin took all the signal", "prot-dia:plasma:*:fail-depletion",
    "prot-dia:plasma", "prot-dia")
ask("tool", "DIA-NN library-free FDR check with entrapment", "prot-dia:*:diann", "prot-dia", "")

family(
    "prot-ptm", "proteomics",
    ("Phosphoproteomics of {data}",
     "Quantify phosphosites in {short}",
     "TMT phospho analysis of {data}"),
    {
        "egfr": D("A431 cells stimulated with EGF over 0-30 min (TMTpro 16-plex, Fe-IMAC)", "the EGF time course",
                  "EGFR", "MAPK1", "MAPK3", "P00533"),
        "insulin": D("insulin-stimulated 3T3-L1 adipocytes (TMT 11-plex)", "the insulin adipocytes",
                     "AKT1", "TBC1D4", "NCBITaxon:10090"),
        "kinase-inh": D("AML cells treated with gilteritinib (TMT, 3 doses)", "the gilteritinib AML",
                        "FLT3", "STAT5A", "CHEMBL3301622"),
    },
    {
        "tmt": M("MaxQuant, MSstatsTMT", "SPS-MS3 TMT acquisition, MaxQuant reporter ion quantification, "
                 "site localisation probability above 0.75, MSstatsTMT with global proteome normalisation."),
        "fragpipe": M("FragPipe, PTMProphet", "FragPipe TMT workflow with PTMProphet localisation, TMT-Integrator "
                      "ratio to a pooled bridge channel, limma on site ratios."),
    },
    {
        "ok": ok("[[n:12000-24000]] class I phosphosites; {site} rose [[fc:3-12]]-fold and kinase enrichment "
                 "(KSEA) pointed to {kinase}.",
                 "Normalise phosphosite changes to the protein level before interpreting regulation."),
        "fail-compression": fail("MS2-level TMT quantification compressed ratios: {site} changed only "
                                 "[[fc:1.3-1.8:1]]-fold where targeted validation showed [[true:6-10]]-fold "
                                 "(co-isolation interference).",
                                 "Use MS3 (SPS) or narrow isolation windows to limit TMT ratio compression."),
        "fail-loc": fail("Sites were reported without localisation filtering; [[pct:20-35]]% of 'regulated "
                         "sites' had localisation probability below 0.5 and several flipped between "
                         "neighbouring serines.",
                         "Filter on localisation probability (class I, above 0.75) before biology."),
    },
    "egfr:tmt:ok egfr:fragpipe:fail-compression insulin:tmt:ok insulin:fragpipe:fail-loc kinase-inh:tmt:ok "
    "kinase-inh:fragpipe:ok",
)
for _key, _s, _k in (("egfr", "MAPK1 T185/Y187", "EGFR and ERK"), ("insulin", "TBC1D4 T642", "AKT"),
                     ("kinase-inh", "STAT5A Y694", "FLT3 (down)")):
    FAMILIES[-1].data[_key].slots.update(site=_s, kinase=_k)
ask("alias", "ERK2 activation loop phosphorylation after EGF stimulation", "prot-ptm:egfr", "prot-ptm", "")
ask("failure", "TMT ratios were compressed compared with the western blot", "prot-ptm:*:*:fail-compression",
    "prot-ptm", "")
ask("alias", "Akt substrate AS160 phosphorylation with insulin", "prot-ptm:insulin", "prot-ptm", "")


# =============================================================================================
# variant calling, GWAS
# =============================================================================================

family(
    "germline", "variant calling, clinical genomics",
    ("Germline variant calling for {data}",
     "Call SNVs and indels in {short}",
     "Joint genotyping of {data}"),
    {
        "trio": D("a rare-disease trio with epileptic encephalopathy (WGS 30x)", "the epilepsy trio",
                  "HP:0001250", "SCN1A", "MONDO:0100062"),
        "exomes": D("12 exomes from a consanguineous family study", "the 12 family exomes",
                    "HP:0001249"),
        "cohort": D("2,400 exomes of a cardiomyopathy cohort", "the cardiomyopathy exomes", "MYH7", "TTN",
                    "MONDO:0004994"),
        "panel": D("a 120-gene hereditary cancer panel on 300 patients", "the cancer panel",
                   "BRCA1", "BRCA2", "MLH1"),
    },
    {
        "gatk": M("GATK, BWA", "BWA-MEM, MarkDuplicates, BQSR, HaplotypeCaller in GVCF mode, GenotypeGVCFs, "
                  "VQSR (SNP tranche 99.7, indel 99.0)."),
        "deepvariant": M("DeepVariant, GLnexus", "DeepVariant 1.5 (WGS / WES model as appropriate) per sample, "
                         "GLnexus joint calling with the DeepVariant preset."),
        "dragen": M("DRAGEN", "DRAGEN germline pipeline with the multigenome (graph) reference and joint "
                    "genotyping, hard filtering by QUAL."),
    },
    {
        "ok": ok("Ti/Tv [[titv:2.0-3.0:2]]; Mendelian error rate "
                 "[[me:0.1-0.4:2]]%; {finding}.",
                 "Report Ti/Tv and Mendelian errors as call-set QC."),
        "fail-vqsr": fail("VQSR failed: too few variants in a small number of exomes to train the Gaussian "
                          "mixture ('no data found' for the negative model); fell back to hard filters "
                          "(QD < 2, FS > 60, MQ < 40).",
                          "Use hard filters (or DeepVariant) instead of VQSR for fewer than about 30 exomes."),
        "fail-bed": fail("Coverage looked fine but [[miss:4-9]]% of panel exons had no calls: the capture BED "
                         "was on hg19 while the reads were on hg38, so intervals pointed at the wrong places.",
                         "Lift over or regenerate the target BED for the reference build used."),
        "ok-denovo": ok("[[dn:1-3]] de novo candidates after filtering; {finding}; confirmed by Sanger.",
                        "Look at de novo calls in IGV; most false ones sit in low-complexity regions."),
    },
    "trio:deepvariant:ok-denovo trio:gatk:ok exomes:gatk:fail-vqsr exomes:deepvariant:ok cohort:gatk:ok "
    "cohort:dragen:ok panel:gatk:fail-bed panel:dragen:ok",
)
for _key, _f in (("trio", "a de novo SCN1A missense (p.Arg1636Gln) in the proband"),
                 ("exomes", "a homozygous frameshift shared by the affected siblings"),
                 ("cohort", "MYH7 and TTN truncating variants enriched in cases"),
                 ("panel", "pathogenic BRCA1/BRCA2 variants in 4.3% of patients")):
    FAMILIES[-1].data[_key].slots["finding"] = _f
ask("failure", "VQSR would not run on a handful of exomes", "germline:*:*:fail-vqsr", "germline:exomes",
    "germline")
ask("paraphrase", "finding the new mutation in the child that neither parent carries", "germline:trio",
    "germline:*:*:ok-denovo", "germline")
ask("failure", "panel exons without any variant calls after changing genome build", "germline:*:*:fail-bed",
    "germline:panel", "")
ask("tool", "DeepVariant with GLnexus joint calling", "germline:*:deepvariant", "germline", "")

family(
    "somatic", "variant calling, cancer genomics",
    ("Somatic variant calling in {data}",
     "Call tumour mutations for {short}",
     "Tumour-normal mutation analysis of {data}"),
    {
        "ffpe": D("FFPE colorectal tumours with matched blood (WES, 45 pairs)", "the FFPE CRC pairs",
                  "APC", "KRAS", "TP53"),
        "tonly": D("tumour-only melanoma panels (no matched normal, 80 samples)", "the tumour-only melanoma",
                   "BRAF V600E", "NRAS"),
        "heme": D("AML samples with skin biopsies as normal (WGS 60x tumour / 30x normal)", "the AML WGS",
                  "FLT3", "NPM1", "DNMT3A"),
        "cfdna": D("plasma cell-free DNA of lung cancer patients (UMI panel, 20,000x)", "the cfDNA panel",
                   "EGFR", "EGFR T790M"),
    },
    {
        "mutect": M("Mutect2, GATK", "Mutect2 with a panel of normals from 40 samples and gnomAD germline "
                    "resource, LearnReadOrientationModel, FilterMutectCalls, Funcotator."),
        "mutect-basic": M("Mutect2, GATK", "Mutect2 tumour-normal with gnomAD as germline resource and "
                          "FilterMutectCalls defaults, no panel of normals, Funcotator."),
        "strelka": M("Strelka2, Manta", "Manta for candidate indels, Strelka2 somatic, PASS only, VEP annotation."),
        "umi": M("fgbio, VarDict", "fgbio consensus reads (min 3 reads per UMI family), VarDictJava at "
                 "0.1% VAF, background error model from 20 healthy plasma samples."),
    },
    {
        "ok": ok("Median [[tmb:3-12:1]] mutations/Mb; {driver} detected; [[conc:88-97]]% concordance with the "
                 "clinical assay.",
                 "Compare with an orthogonal assay on a subset before trusting low-VAF calls."),
        "fail-ffpe": fail("[[ct:40-70]]% of calls were C>T at low VAF (formalin deamination); the mutation "
                          "signature looked like SBS30 noise and TMB was inflated [[x:2-4]]-fold.",
                          "Model read orientation / FFPE artefacts (LearnReadOrientationModel, UDG "
                          "treatment) and look at the C>T share."),
        "fail-tin": fail("Tumour-in-normal contamination: the skin 'normal' contained leukaemic cells "
                         "([[tin:10-25]]% VAF of {driver} in the normal), so true somatic mutations were "
                         "filtered as germline.",
                         "Estimate tumour-in-normal contamination (e.g. DeTiN) in haematological cancers."),
        "fail-germline": fail("Without a matched normal, [[pct:30-60]]% of 'somatic' calls were rare germline "
                              "variants missing from gnomAD for this ancestry.",
                              "Tumour-only calling needs an ancestry-matched panel of normals and germline "
                              "filtering; report results as putative."),
    },
    "ffpe:mutect-basic:fail-ffpe ffpe:mutect:ok tonly:mutect:fail-germline tonly:strelka:ok heme:mutect:fail-tin "
    "heme:strelka:ok cfdna:umi:ok cfdna:mutect:ok",
)
for _key, _d in (("ffpe", "APC and KRAS G12D"), ("tonly", "BRAF V600E"), ("heme", "NPM1"),
                 ("cfdna", "EGFR T790M at 0.4% VAF")):
    FAMILIES[-1].data[_key].slots["driver"] = _d
ask("failure", "too many C>T mutations at low allele fraction in archived tissue", "somatic:ffpe:*:fail-ffpe",
    "somatic:ffpe", "somatic")
ask("failure", "leukaemia cells in the normal sample hid real mutations", "somatic:*:*:fail-tin", "somatic:heme",
    "somatic")
ask("paraphrase", "liquid biopsy resistance mutation detection with molecular barcodes", "somatic:cfdna",
    "somatic", "")
ask("identifier", "T790M", "somatic:cfdna", "", "")

family(
    "gwas", "GWAS, statistical genetics",
    ("GWAS of {data}",
     "Genome-wide association study for {short}",
     "Run association testing for {data}"),
    {
        "t2d": D("type 2 diabetes in a 180,000-participant biobank subset", "the T2D GWAS",
                 "MONDO:0005148", "TCF7L2", "rs7903146"),
        "ldl": D("LDL cholesterol in 95,000 participants", "the LDL GWAS", "PCSK9", "APOE", "LDLR", "rs11591147"),
        "ad": D("Alzheimer's disease by proxy (family history) in 300,000 participants", "the AD-proxy GWAS",
                "APOE", "rs429358", "MONDO:0004975"),
        "admixed": D("asthma in an admixed Latin American cohort (12,000 participants)", "the admixed asthma GWAS",
                     "MONDO:0004979", "ORMDL3", "rs7216389"),
    },
    {
        "regenie": M("REGENIE, PLINK2", "REGENIE step 1 on 500k LD-pruned common SNPs, step 2 on imputed "
                     "dosages (INFO above 0.8, MAF above 0.1%), covariates age, sex, 10 PCs and array."),
        "saige": M("SAIGE", "SAIGE with a sparse GRM for related samples and saddle-point approximation for "
                   "the unbalanced case-control ratio."),
        "plink": M("PLINK2", "PLINK2 --glm logistic/linear with age, sex and 4 PCs."),
    },
    {
        "ok": ok("Lambda GC [[lgc:1.02-1.08:2]], LD score intercept [[ldsc:1.00-1.04:2]]; [[n:12-140]] "
                 "independent loci at p below 5e-8; lead signal {lead} (p = [[p:1-9]]e-[[e:20-60]]).",
                 "Check genomic inflation with the LD score intercept, not lambda alone."),
        "fail-strat": fail("Genomic inflation lambda [[lgc:1.25-1.45:2]] with an LD score intercept of "
                           "[[ldsc:1.15-1.30:2]]: only 4 PCs did not capture the population structure and "
                           "many 'hits' were ancestry-informative markers.",
                           "Use enough PCs (or a mixed model) to capture structure; check the LD score "
                           "intercept."),
        "fail-related": fail("[[rel:8-14]]% of participants were related (kinship above 0.0884) and were "
                             "analysed as unrelated in a plain regression; test statistics were inflated.",
                             "Use a mixed model (REGENIE, SAIGE) or remove relatives."),
        "ok-admix": ok("With local-ancestry-aware testing (Tractor) a signal at {lead} emerged that was "
                       "masked in the standard analysis.",
                       "Model local ancestry in admixed cohorts.", tools="Tractor"),
    },
    "t2d:regenie:ok t2d:plink:fail-strat ldl:regenie:ok ldl:plink:fail-related ad:saige:ok ad:regenie:ok "
    "admixed:plink:fail-strat admixed:regenie:ok-admix",
)
for _key, _l in (("t2d", "rs7903146 in TCF7L2"), ("ldl", "rs11591147 (PCSK9 R46L)"), ("ad", "rs429358 (APOE e4)"),
                 ("admixed", "rs7216389 near ORMDL3")):
    FAMILIES[-1].data[_key].slots["lead"] = _l
ask("identifier", "rs7903146", "gwas:t2d", "", "finemap:t2d")
ask("failure", "genomic inflation too high in the GWAS", "gwas:*:*:fail-strat|fail-related", "gwas", "")
ask("alias", "ApoE4 signal in the family-history Alzheimer's analysis", "gwas:ad", "gwas", "")
ask("paraphrase", "association study in an admixed population with ancestry-specific effects",
    "gwas:admixed", "gwas", "")
ask("tool", "SAIGE saddle point approximation for unbalanced case control", "gwas:*:saige", "gwas", "")

family(
    "finemap", "GWAS, statistical genetics",
    ("Fine-map and colocalise {data}",
     "Credible sets and eQTL colocalisation for {short}",
     "Find the causal variant at {short}"),
    {
        "t2d": D("the TCF7L2 type 2 diabetes locus with islet eQTL", "the TCF7L2 locus", "TCF7L2", "rs7903146",
                 "MONDO:0005148"),
        "ibd": D("IBD loci with immune cell eQTL (BLUEPRINT, eQTLGen)", "the IBD loci", "MONDO:0005265",
                 "IL23R", "rs11209026"),
        "cad": D("coronary artery disease loci with artery eQTL (GTEx v8)", "the CAD loci", "MONDO:0005010",
                 "SORT1", "rs12740374"),
    },
    {
        "susie": M("SuSiE, coloc", "SuSiE RSS with L=10 on summary statistics and an in-sample LD matrix, 95% "
                   "credible sets; coloc.susie with the eQTL."),
        "finemap": M("FINEMAP, coloc", "FINEMAP (max 5 causal) with LD from the 1000 Genomes EUR reference; "
                     "coloc.abf with default priors."),
    },
    {
        "ok": ok("[[cs:1-4]] credible sets; the lead set held [[n:1-6]] variants with {lead} at PIP "
                 "[[pip:0.6-0.98:2]]; colocalisation PP.H4 [[h4:0.85-0.99:2]] with {egene} expression.",
                 "Fine-map with in-sample LD when possible."),
        "fail-ld": fail("With the 1000 Genomes reference LD, SuSiE / FINEMAP returned [[cs:6-12]] credible sets "
                        "at one locus and the lead variant flipped between runs: the reference LD did not match "
                        "the imputed GWAS sample (allele flips, different ancestry mix).",
                        "LD mismatch between reference and GWAS breaks fine-mapping; check with DENTIST or "
                        "use in-sample LD."),
        "fail-coloc": fail("coloc reported PP.H3 [[h3:0.7-0.9:2]] (distinct variants) because the eQTL "
                           "study had a different lead in another tissue; colocalisation with the right cell "
                           "type was not available.",
                           "Colocalise with eQTL from the disease-relevant cell type; bulk tissue eQTL may miss "
                           "cell-type-specific effects."),
    },
    "t2d:susie:ok t2d:finemap:fail-ld ibd:susie:ok ibd:finemap:fail-coloc cad:susie:ok cad:finemap:fail-ld",
)
for _key, _l, _e in (("t2d", "rs7903146", "TCF7L2"), ("ibd", "rs11209026", "IL23R"), ("cad", "rs12740374", "SORT1")):
    FAMILIES[-1].data[_key].slots.update(lead=_l, egene=_e)
ask("failure", "fine-mapping produced too many credible sets with reference LD", "finemap:*:*:fail-ld",
    "finemap", "")
ask("identifier", "rs12740374 SORT1 colocalisation", "finemap:cad", "finemap", "")


# =============================================================================================
# spatial
# =============================================================================================

family(
    "spatial-deconv", "spatial transcriptomics",
    ("Deconvolve {data} into cell types",
     "Estimate cell-type composition per spot in {short}",
     "Map single-cell references onto {data}"),
    {
        "lymph": D("Visium sections of human lymph node (4 sections)", "the lymph node Visium",
                   "CL:0000844", "CR2", "CXCL13"),
        "heart": D("Visium of human myocardial infarction samples (border zone, ischaemic zone, remote)",
                   "the MI Visium", "NPPA", "POSTN", "MONDO:0005068"),
        "brain": D("Visium of mouse brain coronal sections (2 animals)", "the mouse brain Visium",
                   "NCBITaxon:10090", "UBERON:0000955"),
        "tumor": D("Visium HD of colorectal cancer (8 um bins)", "the CRC Visium HD", "EPCAM", "SPP1"),
    },
    {
        "c2l": M("cell2location, scanpy", "cell2location with a regression-model reference of {nref} cell "
                 "types, N_cells_per_location 30, detection_alpha 20, 30,000 epochs on GPU."),
        "rctd": M("spacexr", "RCTD (spacexr) in multi mode with the matched scRNA-seq reference, UMI_min 100."),
        "tangram": M("Tangram, scanpy", "Tangram cluster-level mapping on 1,500 shared marker genes, "
                     "density prior rna_count_based."),
    },
    {
        "ok": ok("{where}; posterior abundances matched histology and [[r:0.6-0.85:2]] correlation with "
                 "nuclei counts from H&E.",
                 "Check deconvolution against histology (nuclei counts, known anatomical structures)."),
        "fail-missing": fail("The reference lacked {absent}, so their spots were assigned to transcriptionally "
                             "nearest types; [[pct:10-25]]% of spots got confident but wrong compositions.",
                             "The single-cell reference must contain every cell type of the tissue; check "
                             "marker genes of missing types in the spatial data first."),
        "fail-platform": fail("Platform effects between the single-nucleus reference and spot data (3' bias, "
                              "nuclear vs whole-cell RNA) made {absent} look absent everywhere; genes with "
                              "large platform differences dominated the fit.",
                              "Use a method that models platform effects (cell2location, RCTD) and the same "
                              "chemistry for reference and spots when possible."),
    },
    "lymph:c2l:ok lymph:rctd:ok heart:c2l:ok heart:tangram:fail-platform brain:tangram:ok brain:rctd:ok "
    "tumor:rctd:fail-missing tumor:c2l:ok",
)
for _key, _n, _w, _a in (("lymph", 34, "germinal-centre B cells mapped to follicles and T cells to the paracortex",
                          "follicular dendritic cells"),
                         ("heart", 22, "SPP1+ macrophages and myofibroblasts concentrated in the ischaemic zone",
                          "cardiomyocytes"),
                         ("brain", 41, "cortical layers L2/3 to L6 resolved in order", "choroid plexus cells"),
                         ("tumor", 28, "SPP1+ macrophages lined the invasive front", "cancer-associated fibroblasts")):
    FAMILIES[-1].data[_key].slots.update(nref=_n, where=_w, absent=_a)
ask("paraphrase", "estimating how many of each cell type sit in every Visium spot of the lymph node",
    "spatial-deconv:lymph", "spatial-deconv", "")
ask("failure", "deconvolution assigned spots to wrong cell types because the reference was incomplete",
    "spatial-deconv:*:*:fail-missing", "spatial-deconv:*:*:-", "spatial-deconv")
ask("tool", "cell2location detection_alpha and N_cells_per_location", "spatial-deconv:*:c2l", "spatial-deconv", "")

family(
    "spatial-imaging", "spatial transcriptomics, imaging",
    ("Cell segmentation and transcript assignment for {data}",
     "Segment cells in {short}",
     "Process the imaging-based spatial run of {data}"),
    {
        "xenium": D("Xenium breast cancer sections (280-gene panel + 100 custom)", "the Xenium breast",
                    "ERBB2", "ESR1", "KRT8"),
        "merfish": D("MERFISH of mouse hypothalamus (155 genes, 3 animals)", "the MERFISH hypothalamus",
                     "Oxt", "Avp", "NCBITaxon:10090"),
        "cosmx": D("CosMx 1,000-plex NSCLC tissue microarray", "the CosMx NSCLC", "EPCAM", "CD274"),
    },
    {
        "baysor": M("Baysor", "Baysor with the nuclei segmentation as prior (prior-segmentation-confidence 0.5), "
                    "scale 8 um, min-molecules-per-cell 20."),
        "cellpose": M("Cellpose", "Cellpose cyto2 on DAPI + membrane stain, diameter 30 px, expansion of "
                      "nuclei by 5 um where no membrane signal."),
        "default": M("Xenium Ranger", "vendor segmentation (nuclear expansion 15 um) as delivered."),
    },
    {
        "ok": ok("[[cells:180000-650000]] cells, median [[tx:60-210]] transcripts per cell; "
                 "[[k:14-30]] cell types with spatially coherent niches.",
                 "Compare segmentation by marker co-expression in cells that should not co-express."),
        "fail-expansion": fail("Nuclear expansion by 15 um assigned transcripts of neighbouring cells: "
                               "[[pct:12-25]]% of tumour cells appeared to express PTPRC and 'doublet-like' "
                               "mixed profiles dominated the niches.",
                               "Large nuclear expansion mixes neighbouring cells; use membrane stains or "
                               "transcript-based segmentation (Baysor, Proseg)."),
        "fail-over": fail("Diameter was set for nuclei, so large cells ({big}) were split into [[parts:2-4]] "
                          "fragments and counted several times.",
                          "Set the segmentation diameter for the largest cell type of interest and check "
                          "outlines on several fields of view."),
    },
    "xenium:default:fail-expansion xenium:baysor:ok merfish:baysor:ok merfish:cellpose:fail-over "
    "cosmx:cellpose:ok cosmx:default:fail-expansion",
)
for _key, _b in (("xenium", "adipocytes"), ("merfish", "magnocellular neurons"), ("cosmx", "macrophages")):
    FAMILIES[-1].data[_key].slots["big"] = _b
ask("failure", "tumour cells appeared to express CD45 in Xenium", "spatial-imaging:*:*:fail-expansion",
    "spatial-imaging:xenium", "spatial-imaging")
ask("alias", "HER2 positive breast tissue imaged with an in situ panel", "spatial-imaging:xenium",
    "spatial-imaging", "")

family(
    "spatial-domains", "spatial transcriptomics",
    ("Identify spatial domains in {data}",
     "Find tissue niches and spatially variable genes in {short}",
     "Spatial clustering of {data}"),
    {
        "dlpfc": D("Visium of human dorsolateral prefrontal cortex (12 sections, LIBD)", "the DLPFC Visium",
                   "UBERON:0009834", "SNAP25", "MBP"),
        "liver": D("Slide-seqV2 of mouse liver lobules", "the Slide-seq liver", "Cyp2e1", "Cyp2f2"),
        "tumor": D("Stereo-seq of hepatocellular carcinoma with tumour margin", "the HCC Stereo-seq",
                   "GPC3", "AFP", "MONDO:0007256"),
    },
    {
        "bayesspace": M("BayesSpace", "BayesSpace spatialCluster with q from the elbow of 15 PCs, 50,000 MCMC "
                        "iterations, gamma 3; spatially variable genes with SPARK-X."),
        "spagcn": M("SpaGCN", "SpaGCN with histology (alpha 1, beta 49), target number of domains set from "
                    "annotation, refinement on hexagonal neighbours."),
        "squidpy": M("squidpy, scanpy", "squidpy spatial neighbours (6 rings), neighbourhood enrichment and "
                     "Moran's I for spatially variable genes, Leiden on expression plus spatial graph."),
    },
    {
        "ok": ok("Domains matched the annotated layers / zones (ARI [[ari:0.45-0.62:2]]); [[svg:800-2400]] "
                 "spatially variable genes with {gene} the strongest.",
                 "Benchmark domain calls against manual annotation (ARI) on at least one section."),
        "fail-batch": fail("Domains followed sections instead of anatomy: each of the sections formed its own "
                           "domains because sections were clustered jointly without correction.",
                           "Integrate sections (e.g. Harmony on PCs) before joint spatial clustering."),
        "fail-k": fail("With the number of domains fixed too high, the {gene} zone was split into "
                       "[[k:3-5]] stripes that were not reproducible between sections.",
                       "Choose the number of domains from stability across sections, not from a guess."),
    },
    "dlpfc:bayesspace:ok dlpfc:spagcn:fail-batch liver:squidpy:ok liver:bayesspace:fail-k tumor:spagcn:ok "
    "tumor:squidpy:ok dlpfc:squidpy:ok",
)
for _key, _g in (("dlpfc", "MBP"), ("liver", "Cyp2e1"), ("tumor", "GPC3")):
    FAMILIES[-1].data[_key].slots["gene"] = _g
ask("paraphrase", "recovering cortical layers from spot data without labels", "spatial-domains:dlpfc",
    "spatial-domains", "spatial-deconv:brain")
ask("failure", "spatial clusters followed tissue sections instead of anatomy", "spatial-domains:*:*:fail-batch",
    "spatial-domains", "")


# =============================================================================================
# imaging
# =============================================================================================

family(
    "img-seg", "imaging",
    ("Segment nuclei in {data}",
     "Count and measure cells in {short}",
     "Automated segmentation of {data}"),
    {
        "organoid": D("DAPI confocal stacks of intestinal organoid sections (40x)", "the organoid sections"),
        "tissue": D("H&E whole-slide images of 120 breast biopsies", "the breast H&E slides", "MONDO:0007254"),
        "live": D("phase-contrast live imaging of migrating HeLa cells (48 h, every 10 min)", "the HeLa time lapse"),
        "neuron": D("two-photon calcium imaging of mouse V1 (GCaMP6s, 30 Hz)", "the V1 calcium imaging",
                    "NCBITaxon:10090"),
    },
    {
        "cellpose": M("Cellpose", "Cellpose nuclei model, diameter [[diam:15-30]] px, flow threshold 0.4, "
                      "cellprob threshold 0."),
        "stardist": M("StarDist, QuPath", "StarDist 2D_versatile_he in QuPath, probability threshold 0.5, "
                      "NMS 0.4, pixel size 0.25 um."),
        "suite2p": M("suite2p", "suite2p registration (nonrigid), ROI detection with tau 1.5 s, neuropil "
                     "coefficient 0.7, classifier threshold 0.5."),
        "trackmate": M("TrackMate, Fiji", "TrackMate with the LoG detector (radius 8 um) and the LAP tracker "
                       "(max linking 15 um, gap closing 2 frames)."),
    },
    {
        "ok": ok("F1 [[f1:0.86-0.94:2]] against [[man:200-600]] manually annotated objects; "
                 "[[n:12000-400000]] objects measured.",
                 "Validate segmentation on a manually annotated subset before measuring."),
        "fail-diameter": fail("Objects were about twice the set diameter at this magnification: most nuclei "
                              "were split in two and counts were inflated [[x:1.6-2.1:1]]-fold. Setting the "
                              "diameter from measured objects fixed it (F1 [[f1:0.88-0.93:2]]).",
                              "Measure the object size on a few images before setting the diameter."),
        "fail-drift": fail("Axial drift over the session moved cells out of plane; [[pct:20-40]]% of ROIs lost "
                           "their signal after 30 min and were kept as 'silenced' cells.",
                           "Check z-drift and discard ROIs whose baseline fluorescence drops."),
        "fail-stain": fail("Stain variation between scanning batches made the model miss pale nuclei in "
                           "[[k:15-30]] slides; Macenko stain normalisation recovered most of them.",
                           "Normalise stains (Macenko / Vahadane) across scanner batches before applying "
                           "a segmentation model."),
    },
    "organoid:cellpose:fail-diameter organoid:stardist:ok tissue:stardist:ok tissue:stardist:fail-stain "
    "live:trackmate:ok neuron:suite2p:ok neuron:suite2p:fail-drift organoid:cellpose:ok",
)
ask("failure", "nuclei were split in half by the segmentation model", "img-seg:*:*:fail-diameter",
    "img-seg:*:cellpose", "img-seg spatial-imaging:*:*:fail-over")
ask("tool", "suite2p neuropil and ROI classifier", "img-seg:*:suite2p", "img-seg", "")
ask("paraphrase", "stain differences between slide scanner batches broke nucleus detection",
    "img-seg:*:*:fail-stain", "img-seg:tissue", "img-hist")

family(
    "img-hcs", "imaging, high-content screening",
    ("High-content screen analysis of {data}",
     "Morphological profiling of {short}",
     "Cell Painting feature extraction for {data}"),
    {
        "cp": D("Cell Painting of U2OS cells with 3,000 compounds (384-well, 4 replicate plates)",
                "the U2OS Cell Painting"),
        "sirna": D("arrayed siRNA screen of 800 kinases with a TFEB nuclear translocation readout",
                   "the TFEB translocation screen", "TFEB", "MTOR"),
        "tox": D("hepatocyte toxicity imaging of 400 drugs (mitochondrial and nuclear stains)",
                 "the hepatotoxicity imaging", "CHEMBL1200766"),
    },
    {
        "cellprofiler": M("CellProfiler, pycytominer", "CellProfiler 4 pipeline (illumination correction, "
                          "nuclei / cell / cytoplasm segmentation, ~3,000 features), pycytominer aggregation, "
                          "robust MAD normalisation to DMSO wells per plate, feature selection."),
        "deep": M("DeepProfiler", "DeepProfiler Cell Painting CNN features (EfficientNet), well-level "
                  "aggregation, sphering on DMSO controls."),
    },
    {
        "ok": ok("Replicate correlation [[rep:0.6-0.8:2]]; [[act:8-20]]% of treatments had a phenotype "
                 "distinguishable from DMSO (mAP); {hit}.",
                 "Normalise to negative controls on each plate."),
        "fail-edge": fail("Edge wells showed systematic differences (evaporation): [[pct:40-70]]% of hits sat "
                          "in columns 1-2 and 23-24; the layout had no controls at the edges to correct it.",
                          "Spread controls across the plate including the edges and correct positional "
                          "effects (or leave edge wells empty)."),
        "fail-batch": fail("Plates imaged on two microscopes separated by instrument in the profile space; "
                           "replicate correlation across instruments was [[rep:0.1-0.3:2]].",
                           "Include the instrument / batch in normalisation, image all plates of a comparison "
                           "on the same microscope."),
    },
    "cp:cellprofiler:ok cp:deep:ok cp:cellprofiler:fail-batch sirna:cellprofiler:fail-edge "
    "sirna:cellprofiler:ok tox:deep:ok tox:cellprofiler:fail-edge",
)
for _key, _h in (("cp", "tubulin binders clustered together"), ("sirna", "MTOR knockdown drove TFEB into the nucleus"),
                 ("tox", "mitochondrial toxicants formed a separate cluster")):
    FAMILIES[-1].data[_key].slots["hit"] = _h
ask("failure", "plate edge wells showed up as hits", "img-hcs:*:*:fail-edge", "img-hcs", "")
ask("paraphrase", "morphological profiles of compounds from the painting assay", "img-hcs:cp", "img-hcs", "")

family(
    "img-hist", "imaging, digital pathology",
    ("Train a classifier on {data}",
     "Deep learning on {short}",
     "Predict from whole-slide images: {data}"),
    {
        "msi": D("H&E slides of 600 colorectal cancers with MSI status (TCGA + in-house)", "MSI from H&E",
                 "MLH1", "MONDO:0005575"),
        "grade": D("prostate biopsies for Gleason grading (1,200 slides, 2 centres)", "the Gleason slides",
                   "MONDO:0008315"),
        "til": D("TNBC H&E slides for tumour-infiltrating lymphocyte scoring (300 slides)", "the TIL scoring",
                 "MONDO:0005494"),
    },
    {
        "mil": M("PyTorch, CLAM", "Tiles of 256 px at 20x, features from a pathology foundation model (UNI), "
                 "attention-based MIL (CLAM), 5-fold cross-validation."),
        "cnn": M("PyTorch", "ResNet50 fine-tuned on 512 px tiles at 20x with Macenko normalisation, slide score "
                 "= mean tile probability."),
    },
    {
        "ok": ok("Slide-level AUROC [[auc:0.82-0.93:2]] in cross-validation and [[ext:0.78-0.88:2]] on the "
                 "external centre; attention maps highlighted {focus}.",
                 "Validate on an external centre before reporting performance."),
        "fail-leak": fail("Tiles of the same patient ended up in training and test folds: AUROC "
                          "[[auc:0.95-0.99:2]] in CV fell to [[ext:0.61-0.70:2]] on the external set.",
                          "Split by patient (and by centre), never by tile."),
        "fail-site": fail("The model learned the scanning site: centre could be predicted from the features "
                          "with AUROC [[site:0.95-0.99:2]] and label prevalence differed by centre.",
                          "Check whether the site is predictable from the features; balance labels across "
                          "sites and validate on held-out sites."),
    },
    "msi:mil:ok msi:cnn:fail-leak grade:mil:ok grade:cnn:fail-site til:mil:ok til:cnn:ok msi:mil:fail-site",
)
for _key, _f in (("msi", "lymphocyte-rich and mucinous regions"), ("grade", "fused glands"),
                 ("til", "stromal lymphocyte aggregates")):
    FAMILIES[-1].data[_key].slots["focus"] = _f
ask("failure", "pathology model looked great in cross validation and collapsed on the external cohort",
    "img-hist:*:*:fail-leak|fail-site", "img-hist", "")
ask("paraphrase", "predicting mismatch repair deficiency directly from H&E", "img-hist:msi", "img-hist", "")


# =============================================================================================
# cheminformatics
# =============================================================================================

family(
    "qsar", "cheminformatics",
    ("Build a QSAR model for {data}",
     "Predict activity of {short} compounds",
     "Train an activity model on {data}"),
    {
        "egfr": D("EGFR inhibitors from ChEMBL (CHEMBL203, 9,800 compounds)", "EGFR", "CHEMBL203", "EGFR",
                  "P00533"),
        "herg": D("hERG blockade data (patch clamp IC50, 6,200 compounds)", "hERG", "KCNH2", "CHEMBL240"),
        "sol": D("aqueous solubility (AqSolDB, 9,900 compounds)", "solubility"),
        "malaria": D("Plasmodium falciparum growth inhibition (GSK TCAMS and MMV, 13,000 compounds)",
                     "antimalarial", "NCBITaxon:5833"),
    },
    {
        "rf": M("RDKit, scikit-learn", "Morgan fingerprints (radius 2, 2,048 bits) and RDKit 2D descriptors, "
                "random forest (500 trees), 5-fold CV."),
        "chemprop": M("Chemprop", "Chemprop D-MPNN (depth 5, hidden 600, 50 epochs, ensemble of 5) with RDKit "
                      "features, scaffold split 80/10/10."),
        "gnn": M("PyTorch Geometric, RDKit", "AttentiveFP graph network, hyperparameters by Optuna (50 trials), "
                 "early stopping on validation RMSE."),
    },
    {
        "ok": ok("Scaffold-split test R2 [[r2:0.55-0.72:2]] / RMSE [[rmse:0.6-0.9:2]] log units; "
                 "applicability domain by Tanimoto to the training set flagged [[ad:8-20]]% of new compounds.",
                 "Use scaffold (or time) splits to estimate performance on new chemistry."),
        "fail-random": fail("Random split gave R2 [[r2:0.8-0.9:2]] but close analogues were in both train and "
                            "test; on a scaffold split R2 dropped to [[r2b:0.35-0.5:2]] and prospective "
                            "predictions for a new series failed.",
                            "Random splits leak analogues and overestimate performance; report scaffold "
                            "or time splits."),
        "fail-units": fail("Mixed activity types and units (IC50 in nM and uM, Ki, percent inhibition) were "
                           "pooled; [[pct:5-12]]% of labels were off by 3 log units and the model learned "
                           "assay source.",
                           "Standardise activity types and units (pChEMBL) and do not pool different assay "
                           "types blindly."),
    },
    "egfr:rf:ok egfr:chemprop:ok herg:rf:fail-random herg:chemprop:ok sol:gnn:ok sol:rf:fail-units "
    "malaria:chemprop:ok malaria:rf:fail-random",
)
ask("failure", "QSAR model looked excellent but failed on a new chemical series", "qsar:*:*:fail-random",
    "qsar", "")
ask("alias", "predicting Kv11.1 channel block of compounds", "qsar:herg", "qsar", "")
ask("tool", "Chemprop D-MPNN with scaffold split", "qsar:*:chemprop", "qsar", "")

family(
    "docking", "cheminformatics, structural biology",
    ("Virtual screening against {data}",
     "Dock a library into {short}",
     "Structure-based screen for {data}"),
    {
        "kras": D("KRAS G12C switch-II pocket (PDB 6OIM)", "KRAS G12C", "KRAS G12C", "6OIM"),
        "mpro": D("SARS-CoV-2 main protease (PDB 6LU7)", "Mpro", "6LU7", "P0DTD1"),
        "d2": D("the dopamine D2 receptor (PDB 6CM4)", "D2R", "DRD2", "6CM4"),
    },
    {
        "vina": M("AutoDock Vina, Open Babel, RDKit", "Receptor prepared with PDBFixer and Open Babel (pH 7.4), "
                  "box of 22 A around the co-crystal ligand, exhaustiveness 16, 2.1M Enamine REAL compounds."),
        "glide": M("Glide, LigPrep", "LigPrep with Epik states at pH 7 +/- 2, Glide SP then XP for the top 5%, "
                   "MM-GBSA rescoring."),
        "gnina": M("GNINA, RDKit", "GNINA CNN scoring on Vina poses, autobox around the ligand, top 1,000 by "
                   "CNN affinity."),
    },
    {
        "ok": ok("Redocking of the co-crystal ligand RMSD [[rmsd:0.6-1.6:1]] A; [[tested:40-120]] compounds "
                 "bought, [[hits:3-11]] confirmed with IC50 below 10 uM.",
                 "Redock the co-crystal ligand first to validate the setup."),
        "fail-proton": fail("Hit list was dominated by compounds in wrong protonation / tautomer states "
                            "(charged amines placed deep in a lipophilic pocket); [[tested:30-60]] bought, "
                            "0 confirmed.",
                            "Enumerate protonation states and tautomers at the assay pH before docking."),
        "fail-site": fail("The box was centred on the apo structure's site, where a loop closes the pocket; "
                          "redocking RMSD was [[rmsd:4-7:1]] A and the screen could not be trusted.",
                          "Dock into a holo structure (or an ensemble) when the pocket is induced by ligand "
                          "binding."),
    },
    "kras:glide:ok kras:vina:fail-site mpro:vina:ok mpro:gnina:ok d2:glide:fail-proton d2:gnina:ok "
    "kras:gnina:ok",
)
ask("identifier", "6OIM docking box", "docking:kras", "docking", "")
ask("failure", "none of the purchased docking hits were active", "docking:*:*:fail-proton",
    "docking:*:*:fail-site", "docking")
ask("paraphrase", "structure-based virtual screen against the coronavirus protease", "docking:mpro",
    "docking", "")

family(
    "chembl", "cheminformatics",
    ("Curate an activity dataset from ChEMBL for {data}",
     "Build a clean {short} activity table",
     "Extract and standardise bioactivities for {data}"),
    {
        "egfr": D("EGFR (CHEMBL203)", "EGFR", "CHEMBL203", "EGFR"),
        "jak": D("the JAK family (JAK1-3, TYK2) for selectivity modelling", "JAK selectivity",
                 "JAK1", "JAK2", "TYK2", "CHEMBL2835"),
        "bace": D("BACE1 inhibitors (CHEMBL4822)", "BACE1", "BACE1", "CHEMBL4822"),
    },
    {
        "rdkit": M("ChEMBL, RDKit, pandas", "ChEMBL 33, IC50/Ki with pchembl_value and standard_relation '=', "
                   "assay confidence 9; RDKit rdMolStandardize (largest fragment, neutralise, canonical "
                   "tautomer); duplicates merged by InChIKey with the median pChEMBL."),
        "naive": M("ChEMBL, pandas", "ChEMBL web service download of all activities for the target, canonical "
                   "SMILES as given, no filtering on assay type."),
    },
    {
        "ok": ok("[[raw:9000-22000]] activity records reduced to [[uniq:4000-9800]] unique compounds; "
                 "[[dup:600-1500]] duplicates merged ([[drop:20-60]] with more than 1 log unit spread dropped).",
                 "Deduplicate by standardised InChIKey and drop compounds whose replicates disagree by more "
                 "than 1 log unit.",
                 "Record the ChEMBL release used; activity counts change between releases."),
        "fail-salts": fail("Without standardisation, salts and charged forms made [[dup:800-1600]] apparent "
                           "duplicates with different SMILES; the same compound appeared with up to 4 labels.",
                           "Standardise structures (largest fragment, neutralise, tautomer) before merging."),
    },
    "egfr:rdkit:ok jak:rdkit:ok jak:naive:fail-salts bace:rdkit:ok bace:naive:fail-salts egfr:naive:fail-salts",
)
ask("identifier", "CHEMBL203 curated set", "chembl:egfr", "qsar:egfr chembl", "")
ask("paraphrase", "the same molecule listed several times as different salts", "chembl:*:*:fail-salts", "chembl",
    "qsar:*:*:fail-units")


# =============================================================================================
# metagenomics
# =============================================================================================

family(
    "amplicon", "metagenomics, microbiome",
    ("16S rRNA amplicon analysis of {data}",
     "Microbiome profiling of {short} from 16S",
     "Process V3-V4 amplicons of {data}"),
    {
        "ibd": D("stool of 150 IBD patients and 50 controls (V4, 2x250)", "the IBD stool", "MONDO:0005265",
                 "PRJNA398089"),
        "soil": D("rhizosphere soil under drought (V3-V4, 2x300, 96 samples)", "the drought rhizosphere"),
        "mouse": D("mouse bronchoalveolar lavage after antibiotics (V4, 60 mice)", "the lung lavage microbiota",
                   "NCBITaxon:10090"),
    },
    {
        "dada2": M("DADA2, phyloseq", "DADA2: truncLen {trunc}, maxEE 2,2, learnErrors on 1e8 bases, chimera "
                   "removal (consensus), SILVA 138.1 taxonomy; phyloseq for diversity."),
        "qiime": M("QIIME 2", "QIIME 2 with deblur (trim 250), q2-feature-classifier with a V4-trained "
                   "naive Bayes classifier, core-metrics-phylogenetic at 10,000 reads."),
    },
    {
        "ok": ok("[[asv:800-4000]] ASVs; [[merge:80-94]]% of reads merged and kept; {finding} (PERMANOVA "
                 "R2 [[r2:0.05-0.15:2]], p 0.001).",
                 "Rarefaction or compositional methods: state which one and why."),
        "fail-trunc": fail("With truncLen {trunc} the reads no longer overlapped for the V3-V4 amplicon "
                           "(about 460 bp): only [[merge:5-20]]% merged and whole taxa disappeared.",
                           "Check read quality and amplicon length: truncated forward + reverse must overlap "
                           "by at least 20 bp."),
        "fail-contam": fail("Low-biomass samples were dominated by kit contaminants (Ralstonia, Bradyrhizobium); "
                            "no negative controls had been sequenced.",
                            "Sequence extraction and PCR blanks and remove contaminants (decontam)."),
    },
    "ibd:dada2:ok ibd:qiime:ok soil:dada2:fail-trunc soil:qiime:ok mouse:dada2:ok mouse:qiime:fail-contam "
    "soil:dada2:ok",
)
for _key, _t, _f in (("ibd", "240,160", "Faecalibacterium prausnitzii depleted in Crohn's disease"),
                     ("soil", "240,200", "Actinobacteria enriched under drought"),
                     ("mouse", "240,160", "Streptococcus and Veillonella dominated after antibiotics")):
    FAMILIES[-1].data[_key].slots.update(trunc=_t, finding=_f)
ask("failure", "paired reads did not merge in DADA2", "amplicon:*:*:fail-trunc", "amplicon:*:dada2", "amplicon")
ask("paraphrase", "bacterial community shifts in plant roots during water stress", "amplicon:soil",
    "amplicon", "")

family(
    "shotgun", "metagenomics",
    ("Shotgun metagenomic profiling of {data}",
     "Taxonomic and functional profile of {short}",
     "Classify reads of {data}"),
    {
        "stool": D("stool shotgun metagenomes of 80 colorectal cancer patients and 80 controls",
                   "the CRC stool metagenomes", "SRR9732012", "MONDO:0005575"),
        "tumor": D("RNA-seq of tumours mined for microbial reads", "the tumour microbiome", "MONDO:0005070"),
        "wastewater": D("municipal wastewater over 52 weeks", "the wastewater time series"),
    },
    {
        "kraken": M("Kraken2, Bracken", "Kraken2 with the standard database (confidence 0.1) and Bracken at "
                    "species level, read length 150."),
        "metaphlan": M("MetaPhlAn, HUMAnN", "MetaPhlAn 4 (vJan21 database) and HUMAnN 3 for pathways, after "
                       "KneadData host removal against GRCh38."),
    },
    {
        "ok": ok("[[sp:250-600]] species detected; {finding}; HUMAnN pathway coverage [[cov:60-80]]%.",
                 "Remove host reads before classification."),
        "fail-host": fail("Host reads were not removed first: [[host:30-90]]% of reads were human and "
                          "spurious primate-associated and contaminant taxa appeared; relative abundances "
                          "shifted with host fraction.",
                          "Remove host reads (Bowtie2 / KneadData against GRCh38) before classification."),
        "fail-db": fail("Kraken2 with the default confidence 0 assigned reads to [[fp:100-400]] low-abundance "
                        "species absent from mock community controls (false positives from shared k-mers).",
                        "Raise the Kraken2 confidence threshold and filter by minimum abundance; check with "
                        "a mock community."),
    },
    "stool:metaphlan:ok stool:kraken:fail-host tumor:kraken:fail-db tumor:kraken:fail-host wastewater:kraken:ok "
    "wastewater:metaphlan:ok stool:kraken:ok",
)
for _key, _f in (("stool", "Fusobacterium nucleatum enriched in cancer"), ("tumor", "few reproducible taxa"),
                 ("wastewater", "seasonal shifts and antibiotic resistance genes rising in winter")):
    FAMILIES[-1].data[_key].slots["finding"] = _f
ask("failure", "most of the metagenomic reads were human", "shotgun:*:*:fail-host", "shotgun", "")
ask("alias", "Fn enrichment in stool of colorectal cancer patients", "shotgun:stool:*:ok", "shotgun:stool",
    "")
ask("tool", "Kraken2 confidence threshold false positives", "shotgun:*:kraken:fail-db", "shotgun:*:kraken", "")

family(
    "mags", "metagenomics",
    ("Recover genomes from {data}",
     "Assemble and bin {short}",
     "Metagenome-assembled genomes for {data}"),
    {
        "gut": D("deeply sequenced infant gut metagenomes (12 samples, 20 Gb each)", "the infant gut"),
        "ocean": D("surface ocean samples from a transect (30 samples)", "the ocean transect"),
        "bioreactor": D("an anaerobic digester time series (long + short reads)", "the digester"),
    },
    {
        "megahit": M("MEGAHIT, MetaBAT 2, CheckM2", "MEGAHIT (k 21-141) per sample, MetaBAT 2 with "
                     "multi-sample coverage, DAS Tool refinement, CheckM2 completeness and contamination, "
                     "GTDB-Tk taxonomy."),
        "hybrid": M("metaFlye, MetaBAT 2, CheckM2", "metaFlye on Nanopore reads polished with Medaka and "
                    "Polypolish, binning with MetaBAT 2 and SemiBin2, CheckM2."),
    },
    {
        "ok": ok("[[hq:40-260]] high-quality MAGs (completeness above 90%, contamination below 5%), "
                 "[[novel:10-40]]% novel species by GTDB.",
                 "Use multi-sample coverage for binning."),
        "fail-coassembly": fail("Co-assembly of all samples merged strains into chimeric contigs; bins had "
                                "contamination above 10% and [[k:20-40]]% of them had to be discarded.",
                                "Assemble per sample (or per group of similar samples) when strain diversity "
                                "is high."),
    },
    "gut:megahit:ok gut:megahit:fail-coassembly ocean:megahit:ok bioreactor:hybrid:ok ocean:megahit:fail-coassembly",
)
ask("paraphrase", "reconstructing microbial genomes from the digester with nanopore", "mags:bioreactor",
    "mags", "")
ask("failure", "binning gave contaminated genomes after co-assembly", "mags:*:*:fail-coassembly", "mags", "")


# =============================================================================================
# structural biology
# =============================================================================================

family(
    "alphafold", "structural biology",
    ("Predict the structure of {data}",
     "AlphaFold model of {short}",
     "Structure prediction for {data}"),
    {
        "p53": D("the TP53 DNA-binding domain with the R175H mutation", "TP53 R175H", "TP53", "P04637",
                 "TP53 R175H", "ENSG00000141510"),
        "complex": D("the KEAP1-NRF2 complex (Kelch domain with the ETGE peptide)", "KEAP1-NFE2L2",
                     "KEAP1", "NFE2L2", "Q14145"),
        "idp": D("the full-length FUS protein (prion-like domain)", "FUS", "FUS", "P35637"),
        "antibody": D("an anti-HER2 antibody Fv bound to the ERBB2 extracellular domain", "the anti-ERBB2 Fv",
                      "ERBB2", "P04626"),
    },
    {
        "colabfold": M("ColabFold", "ColabFold 1.5 with MMseqs2 MSAs, 5 models, 3 recycles, Amber relax of the "
                       "top model."),
        "af-multimer": M("AlphaFold-Multimer", "AlphaFold-Multimer v2.3 with full databases, 5 seeds x 5 "
                         "models, ranking by ipTM + pTM."),
        "af3": M("AlphaFold 3", "AlphaFold 3 server job with 5 seeds; chains and ligands as in the assay."),
    },
    {
        "ok": ok("pLDDT [[pl:85-93]] in the core; {detail}; PAE between domains below [[pae:5-8]] A.",
                 "Read pLDDT and PAE per region, not only the global mean."),
        "fail-idr": fail("[[dis:40-70]]% of residues had pLDDT below 50; the 'structure' of the disordered "
                         "region was a spaghetti-like artefact that one student interpreted as a fold.",
                         "Low pLDDT regions are disordered or unknown; do not interpret their coordinates."),
        "fail-interface": fail("ipTM [[ip:0.25-0.45:2]]: the predicted interface did not match mutagenesis "
                               "data, the antibody CDR loops were placed on the wrong epitope.",
                               "ipTM below about 0.6 means the interface is not reliable; AlphaFold is weak "
                               "for antibody-antigen complexes."),
    },
    "p53:colabfold:ok p53:af3:ok complex:af-multimer:ok complex:colabfold:ok idp:colabfold:fail-idr "
    "idp:af3:fail-idr antibody:af-multimer:fail-interface antibody:af3:fail-interface",
)
for _key, _d in (("p53", "the L2 loop around R175 was less confident (pLDDT 68)"),
                 ("complex", "the ETGE motif sat in the Kelch pocket with ipTM 0.87"),
                 ("idp", "only the RRM and zinc finger were ordered"),
                 ("antibody", "framework regions were accurate")):
    FAMILIES[-1].data[_key].slots["detail"] = _d
ask("alias", "p53 R175H structural model confidence", "alphafold:p53", "alphafold", "")
ask("alias", "Nrf2 peptide binding to the Keap1 Kelch domain predicted structure", "alphafold:complex",
    "alphafold", "")
ask("failure", "predicted antibody antigen interface was wrong", "alphafold:antibody", "alphafold", "")
ask("paraphrase", "low confidence disordered regions interpreted as a fold", "alphafold:*:*:fail-idr",
    "alphafold", "")

family(
    "cryoem", "structural biology",
    ("Single-particle cryo-EM processing of {data}",
     "Reconstruct {short} from cryo-EM data",
     "Get a high-resolution map of {data}"),
    {
        "transporter": D("a detergent-solubilised ABC transporter (ABCB1) in nanodiscs", "ABCB1", "ABCB1", "P08183"),
        "ribosome": D("human 80S ribosomes stalled with a drug", "the stalled 80S"),
        "gpcr": D("a GPCR-Gs complex (GLP1R with a small-molecule agonist)", "GLP1R-Gs", "GLP1R", "P43220"),
    },
    {
        "cryosparc": M("cryoSPARC", "cryoSPARC patch motion and CTF, blob then template picking, 2D classes, "
                       "ab initio (3 classes), non-uniform refinement, local refinement of the flexible domain."),
        "relion": M("RELION, MotionCor2, CTFFIND4", "MotionCor2, CTFFIND4, Topaz picking, RELION 4 2D/3D "
                    "classification, 3D auto-refine, CTF refinement and Bayesian polishing."),
    },
    {
        "ok": ok("[[part:150000-900000]] particles in the final map at [[res:2.4-3.4:1]] A (FSC 0.143); "
                 "{detail}.",
                 "Check the map with local resolution and the model with Q-scores."),
        "fail-orient": fail("Preferred orientation: the 2D classes showed only top views and the map was "
                            "anisotropic (cFAR [[cfar:0.05-0.2:2]]); tilting the stage by 30 degrees was needed.",
                            "Check orientation distribution early; collect tilted data or change the grid / "
                            "detergent for preferred orientation."),
        "fail-heterogeneity": fail("Conformational heterogeneity smeared the {flex}: the consensus map reached "
                                   "[[res:3.5-4.5:1]] A but that region was uninterpretable until 3D variability "
                                   "analysis separated states.",
                                   "Use 3D classification / variability analysis for flexible regions instead "
                                   "of pushing the consensus resolution."),
    },
    "transporter:cryosparc:ok transporter:relion:fail-orient ribosome:relion:ok gpcr:cryosparc:ok "
    "gpcr:cryosparc:fail-heterogeneity ribosome:cryosparc:fail-heterogeneity",
)
for _key, _d, _f in (("transporter", "the drug density in the central cavity was clear", "nucleotide-binding domains"),
                     ("ribosome", "the drug sat in the peptidyl transferase centre", "L1 stalk"),
                     ("gpcr", "the agonist pocket was well resolved", "alpha-helical domain of Gs")):
    FAMILIES[-1].data[_key].slots.update(detail=_d, flex=_f)
ask("failure", "only top views in the 2D classes", "cryoem:*:*:fail-orient", "cryoem", "")
ask("alias", "P-glycoprotein cryo-EM map in nanodiscs", "cryoem:transporter", "cryoem", "")

family(
    "md", "structural biology, molecular dynamics",
    ("Molecular dynamics of {data}",
     "Simulate {short} with MD",
     "Run and analyse MD simulations of {data}"),
    {
        "kras": D("KRAS G12C with and without a covalent inhibitor (3 x 1 us)", "KRAS G12C", "KRAS G12C", "6OIM"),
        "membrane": D("the ABCB1 transporter in a POPC/cholesterol membrane", "ABCB1 in membrane", "ABCB1"),
        "peptide": D("a stapled peptide binding MDM2", "the MDM2 peptide", "MDM2", "TP53"),
    },
    {
        "gromacs": M("GROMACS, CHARMM-GUI", "CHARMM-GUI system building, CHARMM36m, TIP3P, 150 mM NaCl, "
                     "GROMACS 2023 with 2 fs steps, NPT equilibration with restraints released stepwise."),
        "openmm": M("OpenMM, AmberTools", "AmberTools (ff19SB, GAFF2 for the ligand, AM1-BCC charges), OpenMM "
                    "with 4 fs hydrogen mass repartitioning, 3 replicas."),
    },
    {
        "ok": ok("[[t:1-3]] us per replica, RMSD plateaued at [[rmsd:1.5-2.5:1]] A; {detail}.",
                 "Run several replicas; one trajectory is an anecdote."),
        "fail-params": fail("The system blew up within [[ps:20-200]] ps: the ligand parameters had a missing "
                            "dihedral and wrong partial charges for the covalent warhead.",
                            "Parameterise covalent ligands carefully and run a short minimisation + "
                            "restrained equilibration to catch problems."),
        "fail-short": fail("A single 100 ns run suggested a stable open state that disappeared in the "
                           "replicas; the conclusion had to be withdrawn.",
                           "Replicates and convergence checks before conclusions."),
    },
    "kras:openmm:ok kras:openmm:fail-params membrane:gromacs:ok membrane:gromacs:fail-short peptide:openmm:ok "
    "peptide:gromacs:ok",
)
for _key, _d in (("kras", "the inhibitor locked switch II in the inactive conformation"),
                 ("membrane", "cholesterol bound the transmembrane helices 4 and 6"),
                 ("peptide", "the staple kept the helix above 80% of the time")):
    FAMILIES[-1].data[_key].slots["detail"] = _d
ask("failure", "simulation crashed because of bad ligand parameters", "md:*:*:fail-params", "md", "")
ask("tool", "GROMACS CHARMM36m membrane setup", "md:*:gromacs", "md", "")


# =============================================================================================
# genomes, cytometry, immune repertoires, qPCR
# =============================================================================================

family(
    "assembly", "genomics, genome assembly",
    ("De novo genome assembly of {data}",
     "Assemble {short} from long reads",
     "Build a reference genome for {data}"),
    {
        "plant": D("a diploid wild tomato accession (PacBio HiFi 35x + Hi-C)", "the wild tomato",
                   "NCBITaxon:4081"),
        "fish": D("a cichlid fish (ONT ultra-long 60x + Illumina)", "the cichlid"),
        "bacteria": D("24 clinical Klebsiella pneumoniae isolates (ONT R10.4.1 + Illumina)",
                      "the Klebsiella isolates", "NCBITaxon:573", "blaKPC"),
    },
    {
        "hifiasm": M("hifiasm, YaHS, BUSCO", "hifiasm 0.19 in Hi-C phasing mode, YaHS scaffolding, BUSCO "
                     "(solanales_odb10 / actinopterygii_odb10) and Merqury QV."),
        "flye": M("Flye, Medaka, Polypolish", "Flye --nano-hq, two rounds of Medaka, Polypolish with "
                  "Illumina reads, BUSCO and QUAST."),
        "unicycler": M("Unicycler, Bakta", "Trycycler consensus of Flye / Raven / miniasm assemblies, "
                       "Polypolish, Bakta annotation, AMRFinderPlus."),
    },
    {
        "ok": ok("Contig N50 [[n50:8-45]] Mb, BUSCO complete [[busco:95-99:1]]%, QV [[qv:48-62]]; {detail}.",
                 "Report BUSCO and QV together; one is not enough."),
        "fail-contam": fail("[[cont:2-8]]% of the assembly was bacterial / fungal contamination "
                            "(BlobToolKit), including contigs that carried 'novel' genes.",
                            "Screen assemblies for contamination (BlobToolKit, FCS-GX) before annotation."),
        "fail-haplo": fail("BUSCO duplicated [[dup:12-25]]% : haplotigs were kept in the primary assembly "
                           "and inflated the genome size by [[inf:15-30]]%.",
                           "Purge haplotigs (purge_dups) or use phased assembly modes for heterozygous "
                           "genomes."),
    },
    "plant:hifiasm:ok plant:hifiasm:fail-haplo fish:flye:ok fish:flye:fail-contam bacteria:unicycler:ok "
    "bacteria:flye:ok plant:hifiasm:ok",
)
for _key, _d in (("plant", "12 chromosome-scale scaffolds"), ("fish", "22 of 23 chromosomes in single scaffolds"),
                 ("bacteria", "blaKPC carried on a 110 kb plasmid in 9 isolates")):
    FAMILIES[-1].data[_key].slots["detail"] = _d
ask("failure", "duplicated BUSCOs and a genome bigger than expected", "assembly:*:*:fail-haplo", "assembly", "")
ask("paraphrase", "carbapenemase gene location on plasmids in hospital isolates", "assembly:bacteria",
    "assembly", "")

family(
    "cytometry", "cytometry, immunology",
    ("High-dimensional cytometry analysis of {data}",
     "Cluster and annotate {short}",
     "Gate and compare populations in {data}"),
    {
        "cytof": D("CyTOF of whole blood from 40 sepsis patients (38 markers)", "the sepsis CyTOF",
                   "MONDO:0100241", "PTPRC"),
        "spectral": D("spectral flow (Aurora, 28 colours) of tumour-infiltrating lymphocytes", "the TIL spectral flow",
                      "PDCD1", "HAVCR2", "TOX"),
        "vaccine": D("flow cytometry of antigen-specific B cells after vaccination (12 colours, 5 time points)",
                     "the vaccine B cells", "CD19", "CD27"),
    },
    {
        "flowsom": M("CATALYST, FlowSOM", "CATALYST: arcsinh cofactor 5, FlowSOM (10 x 10 grid) with "
                     "ConsensusClusterPlus meta-clustering to 20, diffcyt for differential abundance."),
        "manual": M("FlowJo", "Manual gating in FlowJo with FMO controls, exported frequencies, mixed model "
                    "per population."),
    },
    {
        "ok": ok("[[k:18-28]] populations; {finding}; differential abundance at FDR 0.05 for "
                 "[[n:3-8]] of them.",
                 "Check clusters against manual gates for the main lineages."),
        "fail-spill": fail("Unmixing / compensation errors: a diagonal smear between two fluorochromes created "
                           "an apparent double-positive population ([[pct:4-9]]% of CD8 T cells) that vanished "
                           "after re-unmixing with correct single-stain controls.",
                           "Use single-stain controls acquired with the experiment for unmixing or "
                           "compensation."),
        "fail-batch": fail("Samples acquired over [[days:6-12]] days drifted in signal; clusters split by "
                           "acquisition day until normalisation with a bridge (anchor) sample.",
                           "Acquire a bridge sample every day and normalise (CytoNorm)."),
    },
    "cytof:flowsom:ok cytof:flowsom:fail-batch spectral:flowsom:fail-spill spectral:manual:ok "
    "vaccine:manual:ok vaccine:flowsom:ok",
)
for _key, _f in (("cytof", "CD14+ HLA-DR low monocytes expanded in non-survivors"),
                 ("spectral", "PD-1+ TIM-3+ TOX+ CD8 T cells enriched in responders"),
                 ("vaccine", "antigen-specific CD27+ memory B cells peaked at day 28")):
    FAMILIES[-1].data[_key].slots["finding"] = _f
ask("paraphrase", "fake double positive population from spectral unmixing", "cytometry:*:*:fail-spill",
    "cytometry", "")
ask("alias", "TIM-3 and PD-1 co-expression on tumour T cells by flow", "cytometry:spectral",
    "cytometry", "sc-trajectory:tcell")

family(
    "repertoire", "scRNA-seq, immunology",
    ("TCR / BCR repertoire analysis of {data}",
     "Clonotype analysis for {short}",
     "Immune receptor sequencing analysis of {data}"),
    {
        "tils": D("10x 5' V(D)J of tumour-infiltrating T cells from 10 melanoma patients before and after "
                  "anti-PD-1", "the melanoma TILs", "PDCD1", "CD8A"),
        "covid": D("BCR repertoires of convalescent COVID-19 donors (10x V(D)J)", "the COVID BCRs",
                   "IGHV3-53", "MONDO:0100096"),
        "celiac": D("gluten-specific CD4 T cells from celiac disease patients (bulk TRB sequencing)",
                    "the celiac TCRs", "HLA-DQ2", "MONDO:0005130"),
    },
    {
        "scirpy": M("scirpy, scanpy", "scirpy: chain QC (one productive pair), clonotype definition by CDR3 "
                    "nucleotide identity, clonal expansion per cluster, TCRdist-like network for convergent "
                    "clonotypes."),
        "immcantation": M("Immcantation, Change-O", "IgBLAST, Change-O clonal clustering by junction distance "
                          "(threshold from distToNearest), SHM from germline reconstruction."),
    },
    {
        "ok": ok("{finding}; [[exp:10-35]]% of cells belonged to expanded clones.",
                 "Define clonotypes on both chains when available."),
        "fail-threshold": fail("The clonal distance threshold was taken from another dataset; unrelated "
                               "sequences were merged into [[k:10-40]] giant 'clones' and SHM estimates were "
                               "inflated.",
                               "Derive the clonal clustering threshold from the distance-to-nearest "
                               "distribution of your own data."),
    },
    "tils:scirpy:ok covid:immcantation:ok covid:immcantation:fail-threshold celiac:scirpy:ok tils:scirpy:ok",
)
for _key, _f in (("tils", "expanded CD8 clones in exhausted clusters were shared before and after therapy"),
                 ("covid", "IGHV3-53 antibodies with few mutations were convergent across donors"),
                 ("celiac", "public TRBV7-2 clonotypes recurred across patients")):
    FAMILIES[-1].data[_key].slots["finding"] = _f
ask("paraphrase", "shared antibody heavy chain genes across recovered coronavirus patients",
    "repertoire:covid:*:ok", "repertoire:covid", "repertoire")
ask("tool", "scirpy clonotype network", "repertoire:*:scirpy", "repertoire", "")

family(
    "qpcr", "molecular biology",
    ("RT-qPCR analysis of {data}",
     "Relative quantification by qPCR for {short}",
     "Analyse the qPCR plates of {data}"),
    {
        "hypoxia": D("HIF target genes in HUVEC under 1% O2", "the hypoxia qPCR", "VEGFA", "CA9", "GAPDH"),
        "knockdown": D("siRNA knockdown validation of 12 kinases in HeLa", "the knockdown validation", "ACTB"),
        "tissue": D("inflammatory genes in mouse colon after DSS (n=8)", "the DSS colon qPCR", "Il6", "Tnf",
                    "NCBITaxon:10090"),
    },
    {
        "ddct": M("qbase+, R", "Delta-delta Ct with primer efficiencies from standard curves, reference gene(s) "
                  "as listed, technical triplicates, statistics on delta Ct."),
    },
    {
        "ok": ok("Two reference genes selected with geNorm (M below 0.5); {finding}.",
                 "Validate reference gene stability (geNorm / NormFinder) in your conditions."),
        "fail-ref": fail("GAPDH was used as the only reference gene but it is itself induced by hypoxia "
                         "([[x:1.8-2.6:1]]-fold), so target induction was underestimated.",
                         "Do not normalise to a reference gene that responds to the treatment; check "
                         "stability first."),
    },
    "hypoxia:ddct:fail-ref hypoxia:ddct:ok knockdown:ddct:ok tissue:ddct:ok",
)
for _key, _f in (("hypoxia", "CA9 up 14-fold and VEGFA up 5-fold"), ("knockdown", "10 of 12 siRNAs gave more than "
                  "70% knockdown"), ("tissue", "Il6 up 25-fold at day 7")):
    FAMILIES[-1].data[_key].slots["finding"] = _f
ask("failure", "housekeeping gene changed with the treatment in qPCR", "qpcr:*:*:fail-ref", "qpcr",
    "")


def extend(key: str, episodes: str) -> None:
    """More runs of a family: near-duplicates of earlier combinations, with other numbers."""
    for i, fam in enumerate(FAMILIES):
        if fam.key == key:
            FAMILIES[i] = Family(fam.key, fam.domains, fam.tasks, fam.data, fam.methods, fam.outcomes,
                                 fam.episodes + tuple(episodes.split()))
            return
    raise KeyError(key)


extend("sc-integration", "ibd:scanvi:ok-transfer atlas:scvi:ok")
extend("bulk-de", "huvec:limma:ok ko:deseq2:ok")
extend("crispr-mageck", "olaparib:mle:ok-mle virus:both:ok")
extend("gwas", "t2d:saige:ok ldl:regenie:ok")
extend("atac-qc", "islet:signac:ok")
extend("sc-annotation", "pbmc:markers:ok-markers")
extend("prot-dia", "plasma:diann:ok")
extend("alphafold", "complex:af3:ok")


# =============================================================================================
# questions across families: identifiers quoted or pasted, tools across domains
# =============================================================================================

ask("identifier", "GSE194122", "sc-doublets:multiome", "", "")
ask("identifier", "HP:0001250 seizure trio analysis", "germline:trio", "germline", "")
ask("identifier", "MONDO:0005148 islet chromatin", "atac-qc:islet", "gwas:t2d finemap:t2d", "")
ask("identifier", "CHEMBL240", "qsar:herg", "", "")
ask("identifier", "P04637", "alphafold:p53 prot-dda:ip", "", "")
ask("identifier", "ENSG00000141510", "alphafold:p53 prot-dda:ip", "crispr-mageck:olaparib",
    "somatic:ffpe md:peptide")
ask("identifier", "ENSG00000133703 screen hits", "crispr-mageck:sotorasib", "crispr-mageck", "")
ask("identifier", "rs429358", "gwas:ad", "", "")
ask("identifier", "6LU7", "docking:mpro", "", "")
ask("identifier", "SRR9732012 classification", "shotgun:stool", "shotgun", "")
ask("identifier", "GO:0019395 proteomics", "prot-dda:liver", "prot-dda", "")
ask("identifier", "PRJNA398089", "amplicon:ibd", "", "")
ask("identifier", "ENCSR767LLP", "splicing:kd", "", "")
ask("identifier", "kinship above 0.0884", "gwas:*:*:fail-related", "gwas", "")
ask("identifier", '"--variable-read-length"', "splicing:*:rmats", "", "")
ask("identifier", "truncLen 240,200", "amplicon:soil:dada2", "amplicon", "")
ask("identifier", "min.pct 0.25 marker annotation", "sc-annotation:*:markers", "sc-annotation", "")
ask("identifier", "CL:0000844", "spatial-deconv:lymph", "", "")
ask("identifier", "Q14145", "alphafold:complex", "", "")
ask("identifier", "6CM4 D2 receptor", "docking:d2", "docking", "")
ask("tool", "which analyses used Harmony", "sc-integration:*:harmony",
    "sc-integration spatial-domains:*:*:fail-batch", "")
ask("tool", "Bowtie2 alignment settings", "chip:*:macs2|seacr|broad",
    "crispr-mageck:*:rra", "shotgun:*:*:fail-host")
ask("tool", "experience with scvi-tools models", "sc-integration:*:scvi|scanvi sc-doublets:*:solo",
    "sc-integration", "")
ask("tool", "Cellpose runs and the diameter setting", "img-seg:*:cellpose spatial-imaging:*:cellpose",
    "img-seg spatial-imaging", "")
ask("tool", "MACS2 peak calling parameters", "chip:*:macs2|broad atac-qc:*:signac",
    "chip atac-qc", "")
ask("alias", "ERBB2 amplified breast cancer imaging", "spatial-imaging:xenium", "spatial-imaging", "alphafold:antibody")
ask("alias", "Kelch-like ECH-associated protein 1 loss causing drug resistance in the screen",
    "crispr-mageck:sotorasib", "crispr-mageck", "")
ask("alias", "CD45 expression in epithelial cells after segmentation", "spatial-imaging:*:*:fail-expansion",
    "spatial-imaging", "")
ask("paraphrase", "which compounds did we buy after the docking screen and how many were real",
    "docking:*:*:ok|fail-proton", "docking", "")
ask("paraphrase", "estimate of how many reads in droplets come from the background soup",
    "sc-ambient", "", "sc-qc")
