# Two commands on a fresh machine: `make demo` and `make test`. Each makes its own .venv.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
DEMO ?= demo-vault

.PHONY: venv test explore lint demo bench clean-demo stress

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	@touch $@

test: venv
	$(PY) -m pytest -q -n 2 -p no:cacheprovider

# The property tests with new random examples each run (`make test` draws the same ones every run).
explore: venv
	$(PY) -m pytest -q -n 2 -p no:cacheprovider --hypothesis-profile=explore -x

lint: venv
	$(BIN)/ruff check biocortex_cli tests benchmarks scripts
	$(BIN)/mypy

demo: venv
	@rm -rf $(DEMO) $(DEMO)-compressed.json $(DEMO)-remote.git $(DEMO)-b
	@echo "== biocortex init $(DEMO)" >&2
	$(BIN)/biocortex init $(DEMO)
	@echo "== import the shipped sample episodes" >&2
	$(BIN)/biocortex --vault $(DEMO) episode import examples/sample_episodes.jsonl
	@echo "== the five newest episodes" >&2
	$(BIN)/biocortex --vault $(DEMO) episode list --limit 5
	@echo "== failed scRNA-seq analyses" >&2
	$(BIN)/biocortex --vault $(DEMO) episode list --domain scRNA-seq --failure
	@echo "== recall: what went wrong last time? (--explain on stderr shows why each hit ranks)" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "what went wrong last time we removed doublets from 10x multiome data?" --explain
	@echo "== recall with a small budget, as JSON (the shape agents parse)" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "KRAS G12C CRISPR screen resistance" --budget 400 --json
	@echo "== semantic memory: facts with sources, aliases, a contradiction and its resolution" >&2
	$(BIN)/biocortex --vault $(DEMO) fact add TP53 regulates MDM2 --source PMID:8319905 --confidence 0.95
	$(BIN)/biocortex --vault $(DEMO) entity alias TP53 p53
	$(BIN)/biocortex --vault $(DEMO) fact add p53 activates CDKN1A --source PMID:8242752 --confidence 0.9
	$(BIN)/biocortex --vault $(DEMO) fact add MDM2 ubiquitinates TP53 --source PMID:9153395 --confidence 0.9
	$(BIN)/biocortex --vault $(DEMO) fact add KEAP1 inhibits NFE2L2 --source PMID:9887101 --confidence 0.95
	$(BIN)/biocortex --vault $(DEMO) entity alias NFE2L2 "nuclear factor erythroid 2-related factor 2"
	$(BIN)/biocortex --vault $(DEMO) fact add "KEAP1 knockout" confers_resistance_to sotorasib --source 2025-06-12-brunello-sotorasib-screen
	id=$$($(BIN)/biocortex --vault $(DEMO) fact add KEAP1 activates NFE2L2 --source agent:draft --confidence 0.3) && \
	  $(BIN)/biocortex --vault $(DEMO) fact retract $$id --reason "draft claim; PMID:9887101 shows inhibition"
	@echo "== a retracted fact stays retracted: adding it again is refused unless --reopen" >&2
	$(BIN)/biocortex --vault $(DEMO) fact add KEAP1 activates NFE2L2 --source agent:draft || echo "(refused: exit $$?)" >&2
	@echo "== curated facts in bulk: every row checked, one commit for the file (sources: the episodes they came from)" >&2
	$(BIN)/biocortex --vault $(DEMO) fact import examples/curated_facts.tsv
	@echo "== two notes for one gene: the alias is refused; --merge makes NRF2 a name of NFE2L2 (facts and episodes follow)" >&2
	$(BIN)/biocortex --vault $(DEMO) entity alias NFE2L2 NRF2 || echo "(refused: exit $$?)" >&2
	$(BIN)/biocortex --vault $(DEMO) entity alias NFE2L2 NRF2 --merge
	@echo "== what memory knows around p53 (aliases resolved, two hops)" >&2
	$(BIN)/biocortex --vault $(DEMO) fact query p53 --hops 2
	@echo "== an agent checks a claim before relying on it (exit 0 supported, 4 unknown, 5 contested, 6 contradicted)" >&2
	$(BIN)/biocortex --vault $(DEMO) fact verify KEAP1 inhibits "nuclear factor erythroid 2-related factor 2"
	@echo "== evidence on both sides, weighed per independent source: neither clearly outweighs, so contested (exit 5)" >&2
	$(BIN)/biocortex --vault $(DEMO) fact add TP53 inhibits CDKN1A --source PMID:11287591 --confidence 0.6
	$(BIN)/biocortex --vault $(DEMO) fact verify TP53 activates CDKN1A || echo "(exit $$?: contested)" >&2
	@echo "== an entity with its neighbourhood: aliases, facts in and out, episodes" >&2
	$(BIN)/biocortex --vault $(DEMO) entity show KEAP1
	@echo "== a dataset as a source of record: one note in the vault, its rows stay in the file (a hand-written CC0 sample: examples/datasets/NOTICE.md)" >&2
	$(BIN)/biocortex --vault $(DEMO) dataset add examples/datasets/regulation_sample.tsv --name regulation-sample \
	  --version 1 --licence CC0-1.0 --title "hand-written sample, not a curated resource" \
	  --map subject=TF --map object=Target --map predicate=Regulation --map publications=Reference \
	  --predicate-map Activation=activates --predicate-map Repression=inhibits --qualifier taxon=9606
	$(BIN)/biocortex --vault $(DEMO) dataset list
	$(BIN)/biocortex --vault $(DEMO) fact query CDKN1A
	@echo "== the dataset weighs in beside the notes, once per side whatever its rows cite: still contested (exit 5)" >&2
	$(BIN)/biocortex --vault $(DEMO) fact verify TP53 activates CDKN1A; code=$$?; echo "exit $$code" >&2; test $$code -eq 5
	@echo "== recall now adds what memory knows about the question's entities (p53 is TP53)" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "KEAP1 knockout and p53 in lung cancer cells" --budget 1200
	@echo "== working memory: compress a long agent transcript to 3,400 tokens (before/after on stderr)" >&2
	$(BIN)/biocortex compress tests/data/transcripts/04_bulk_rnaseq_deseq2.json --budget 3400 > $(DEMO)-compressed.json
	@$(PY) -c "import json; m = json.load(open('$(DEMO)-compressed.json'))['messages']; print(m[1]['content'][:1800], '…')"
	@echo "== one call for a planner prompt: conversation + past analyses + facts in 2,500 tokens" >&2
	$(BIN)/biocortex --vault $(DEMO) context "KEAP1 knockout RNA-seq: what went wrong before?" \
	  --conversation tests/data/transcripts/04_bulk_rnaseq_deseq2.json --budget 2500 --json \
	  | $(PY) -c "import json, sys; d = json.load(sys.stdin); print({p['name']: p['tokens'] for p in d['parts']}, d['tokens'], '/', d['budget'])"
	@echo "== memory that learns: an agent recalls, then says which past analyses helped (3 tasks)" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "doublet detection in single-cell data" --top-k 3 --explain > /dev/null
	rid=$$($(BIN)/biocortex --vault $(DEMO) recall "doublet detection in single-cell data" --top-k 3 --json \
	  | $(PY) -c "import json, sys; print(json.load(sys.stdin)['recall_id'])") && \
	for n in 1 2 3; do $(BIN)/biocortex --vault $(DEMO) --author "agent:planner <agent@lab.example>" feedback $$rid \
	  --outcome success --helpful 2025-07-08-multiome-doublets-amulet --unhelpful 2026-05-06-cite-doublets-hashing \
	  --note "task $$n: the AMULET run's per-modality calls were what we needed" > /dev/null; done
	@echo "== the same recall after the feedback: the helpful analysis now ranks first (signal: utility)" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "doublet detection in single-cell data" --top-k 3 --explain > /dev/null
	@echo "== synonyms: other words for the same thing (multiplet = doublet, single-cell = scRNA-seq; --explain shows the match)" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "multiplet removal in single-cell data" --top-k 2 --explain > /dev/null
	@echo "== the vault learns its own words: three 'rerun' questions answered by episodes that say 'redo'" >&2
	for qh in "rerun of the stroke Visium clustering|2026-05-12-visium-stroke-rerun" \
	  "rerun of the KRAS docking|2026-06-17-covalent-docking-kras" "rerun of the HepG2 segmentation|2026-11-03-hepg2-cellpose-rerun"; do \
	  rid=$$($(BIN)/biocortex --vault $(DEMO) recall "$${qh%|*}" --json | $(PY) -c "import json, sys; print(json.load(sys.stdin)['recall_id'])") && \
	  $(BIN)/biocortex --vault $(DEMO) feedback $$rid --outcome success --helpful "$${qh#*|}" > /dev/null || exit 1; done
	@echo "== vocabulary suggest proposes pairs with their support; nothing applies until someone accepts one" >&2
	$(BIN)/biocortex --vault $(DEMO) vocabulary suggest
	$(BIN)/biocortex --vault $(DEMO) vocabulary accept 1
	$(BIN)/biocortex --vault $(DEMO) recall "rerun of the QSAR evaluation" --top-k 1 --explain > /dev/null
	@echo "== lessons several episodes state, clustered; promote one to a note that links its evidence" >&2
	$(BIN)/biocortex --vault $(DEMO) lessons --limit 3
	$(BIN)/biocortex --vault $(DEMO) lessons promote c-2665a427
	@echo "== recall now prints the promoted lesson first, inside the budget" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "call doublets per sample before merging libraries" --budget 500 --top-k 1
	@echo "== forgetting archives, never deletes (dry run); episodes related to one analysis" >&2
	$(BIN)/biocortex --vault $(DEMO) forget --older-than 400d --quality-below 0.4 --dry-run
	$(BIN)/biocortex --vault $(DEMO) episode related 2026-03-14-multiome-doublets --limit 3
	@echo "== a team shares memory through a git remote: a second clone adds an episode; both sync" >&2
	git clone -q --bare $(DEMO) $(DEMO)-remote.git && git -C $(DEMO) remote add origin ../$(DEMO)-remote.git
	git clone -q $(DEMO)-remote.git $(DEMO)-b
	$(BIN)/biocortex --vault $(DEMO)-b --author "Bob <bob@lab.example>" episode add --no-suggest \
	  --task "Ambient RNA removal with CellBender on 10x PBMC before doublet calling" --tool CellBender \
	  --domain scRNA-seq --result "FPR 0.01 removed HBB/HBA2 contamination" --success --quality 0.8 > /dev/null
	$(BIN)/biocortex --vault $(DEMO)-b sync
	$(BIN)/biocortex --vault $(DEMO) sync
	@echo "== what changed in memory, for a reviewer" >&2
	$(BIN)/biocortex --vault $(DEMO) log --since 1d | tail -12
	@echo "== check the vault; open contradictions between facts are listed as information (--facts)" >&2
	$(BIN)/biocortex --vault $(DEMO) check --facts
	@echo "== git log of the vault" >&2
	git -C $(DEMO) log --oneline | head -5

bench: venv
	$(PY) benchmarks/startup.py
	$(PY) benchmarks/recall.py
	$(PY) benchmarks/writes.py

stress: venv
	$(PY) benchmarks/crash.py --trials 200
	$(PY) benchmarks/load.py --episodes 10000 --seconds 30
	$(PY) benchmarks/fuzz.py --examples 5000
