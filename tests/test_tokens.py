"""biocortex_cli.tokens: exact offline counts, no network ever, a conservative estimate."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biocortex_cli import tokens
from biocortex_cli.errors import UsageError
from biocortex_cli.tokens import ESTIMATE, TokenCounter, estimate_tokens, get_counter

REPO = Path(__file__).resolve().parents[1]
DATA_FILE = REPO / "biocortex_cli" / "data" / "cl100k_base.tiktoken"
WARNING = "biocortex: warning: tokenizer {} unavailable offline; counting with a conservative estimate"

# Counts computed once with cl100k_base and hard-coded.
KNOWN_CL100K = {
    "hello world": 2,
    "": 0,
    "<|endoftext|>": 7,  # a special token's text inside user text is counted as text
    "ENSG00000141510": 6,
    "TP53 and BRCA1 are tumour suppressors.": 12,
    '{"gene": "TP53", "id": 7157}': 14,
    "ACGTACGTACGTACGTACGT": 10,
    "細胞 🧬": 7,
    "def f(x):\n    return x + 1\n": 11,
}

BIO_TEXT = """Tumor protein p53 (TP53; ENSG00000141510) is a transcription factor that regulates the cell
cycle, apoptosis and genomic stability. Missense variants such as c.215C>G (p.Pro72Arg, rs1042522)
and R175H, R248Q, R273H cluster in the DNA-binding domain (residues 94-292). Loss of TP53 co-occurs
with KRAS G12D and CDKN2A deletion in pancreatic ductal adenocarcinoma (PDAC). RNA-seq (2x150 bp)
reads were aligned to GRCh38.p14 with STAR v2.7.10a; GO:0006915 and HP:0001250 were enriched.
Phosphorylation of Ser15 by ATM/ATR stabilises p53; IC50 = 3.2 µM (95% CI 2.1–4.8), γH2AX foci.
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY")}
    env.update(extra)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (extra.get("PYTHONPATH"), str(REPO)) if p)
    return env


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# ---- loading --------------------------------------------------------------------------------


def test_import_does_not_import_tiktoken() -> None:
    proc = _run(
        """
        import sys
        import biocortex_cli.tokens
        assert "tiktoken" not in sys.modules, "importing biocortex_cli.tokens imported tiktoken"
        """,
        _env(),
    )
    assert proc.returncode == 0, proc.stderr


def test_counts_offline_with_network_blocked(tmp_path: Path) -> None:
    """Every socket connect raises, proxies point at a dead local port, and HOME, TMPDIR and
    TIKTOKEN_CACHE_DIR are empty: counting still gives exact cl100k_base counts and writes no
    cache file."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        textwrap.dedent(
            """
            import socket

            class NetworkBlocked(OSError):
                pass

            def _blocked(*args, **kwargs):
                raise NetworkBlocked(f"network access attempted: {args!r}")

            socket.socket.connect = _blocked
            socket.socket.connect_ex = _blocked
            socket.create_connection = _blocked
            socket.getaddrinfo = _blocked
            """
        )
    )
    home, cache, tmp = tmp_path / "home", tmp_path / "cache", tmp_path / "tmp"
    for d in (home, cache, tmp):
        d.mkdir()
    dead = "http://127.0.0.1:9"
    env = _env(
        PYTHONPATH=str(blocker),
        HOME=str(home),
        TMPDIR=str(tmp),
        TIKTOKEN_CACHE_DIR=str(cache),
        HTTP_PROXY=dead,
        HTTPS_PROXY=dead,
        http_proxy=dead,
        https_proxy=dead,
        ALL_PROXY=dead,
    )
    env.pop("DATA_GYM_CACHE_DIR", None)
    proc = _run(
        f"""
        import json, socket, sys
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=1)
        except OSError as exc:
            assert type(exc).__name__ == "NetworkBlocked", exc
        else:
            raise SystemExit("the network blocker is not active")
        from biocortex_cli.tokens import get_counter
        counter = get_counter("cl100k_base")
        texts = {list(KNOWN_CL100K)!r}
        print(json.dumps({{
            "encoding": counter.encoding,
            "counts": [counter.count(t) for t in texts],
            "many": counter.count_many(texts * 20),
            "modules": sorted(m for m in ("requests", "urllib3", "blobfile", "http.client")
                              if m in sys.modules),
        }}))
        """,
        env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no warning: the real encoding was loaded
    out = json.loads(proc.stdout)
    assert out["encoding"] == "cl100k_base"
    assert out["counts"] == list(KNOWN_CL100K.values())
    assert out["many"] == list(KNOWN_CL100K.values()) * 20
    assert out["modules"] == []
    assert list(cache.iterdir()) == []
    assert list(tmp.iterdir()) == []
    assert list(home.iterdir()) == []


def test_shipped_file_is_the_official_cl100k_base() -> None:
    import hashlib

    assert hashlib.sha256(DATA_FILE.read_bytes()).hexdigest() == tokens._SPECS["cl100k_base"].sha256


def test_parser_matches_tiktoken_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    from tiktoken.load import load_tiktoken_bpe

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # "" = no cache: a plain local read
    assert tokens._parse_ranks(DATA_FILE.read_bytes()) == load_tiktoken_bpe(str(DATA_FILE))


def test_load_from_a_given_folder_and_reject_bad_files(tmp_path: Path) -> None:
    assert tokens._load_encoding("cl100k_base", [tmp_path]) is None  # nothing there
    data = DATA_FILE.read_bytes()
    (tmp_path / "cl100k_base.tiktoken").write_bytes(data[: len(data) // 2])  # truncated
    assert tokens._load_encoding("cl100k_base", [tmp_path]) is None
    good = tmp_path / "good"
    good.mkdir()
    (good / "cl100k_base.tiktoken").write_bytes(data)
    enc = tokens._load_encoding("cl100k_base", [tmp_path, good])  # bad one skipped
    assert enc is not None
    assert len(enc.encode_ordinary("hello world")) == 2


# ---- get_counter --------------------------------------------------------------------------


def test_default_counter_is_real_and_cached() -> None:
    counter = get_counter()
    assert counter.encoding == "cl100k_base"
    assert not counter.is_estimate
    assert get_counter("cl100k_base") is counter
    assert get_counter(encoding="cl100k_base") is counter


@pytest.mark.parametrize("text", list(KNOWN_CL100K))
def test_known_counts(text: str) -> None:
    assert get_counter().count(text) == KNOWN_CL100K[text]


def test_unknown_encoding_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as info:
        get_counter("gpt2")
    assert info.value.exit_code == 2
    assert info.value.hint is not None
    for name in ("cl100k_base", "o200k_base", "estimate"):
        assert name in info.value.hint


def test_explicit_estimate_counter_warns_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    tokens._cached_counter.cache_clear()
    counter = get_counter(ESTIMATE)
    assert counter.encoding == ESTIMATE and counter.is_estimate
    assert counter.count("hello world") == estimate_tokens("hello world")
    assert capsys.readouterr().err == ""


def test_o200k_base_ships_and_loads_offline() -> None:
    counter = get_counter("o200k_base")
    assert counter.encoding == "o200k_base" and not counter.is_estimate
    text = "TP53 R175H in ENSG00000141510; see GO:0008150 and 🧬 data"
    assert counter.count(text) > 0
    assert counter.count(text) <= get_counter(ESTIMATE).count(text)


def test_unavailable_encoding_falls_back_with_one_warning(tmp_path: Path) -> None:
    """With the package's data folder holding a corrupt file, the estimate takes over, once."""
    (tmp_path / "o200k_base.tiktoken").write_bytes(b"not a rank file\n")
    proc = _run(
        f"""
        import json
        from pathlib import Path
        from biocortex_cli import tokens
        tokens._package_data_dir = lambda: Path({str(tmp_path)!r})
        tokens._candidate_dirs = lambda: [Path({str(tmp_path)!r})]
        a = tokens.get_counter("o200k_base")
        b = tokens.get_counter("o200k_base")
        print(json.dumps([a.encoding, b.encoding, a.count("hello world")]))
        """,
        _env(),
    )
    assert proc.returncode == 0, proc.stderr
    encoding, again, count = json.loads(proc.stdout)
    assert encoding == again == ESTIMATE
    assert proc.stderr.splitlines() == [WARNING.format("o200k_base")]
    assert count == estimate_tokens("hello world")


# ---- counting -----------------------------------------------------------------------------


def test_special_token_text_is_counted_not_rejected() -> None:
    text = "before <|endoftext|> <|fim_prefix|> <|endofprompt|> after"
    assert get_counter().count(text) > 7
    assert get_counter(ESTIMATE).count(text) >= get_counter().count(text)


def test_lone_surrogate_does_not_raise() -> None:
    text = "abc\ud800def"
    assert get_counter().count(text) >= 3
    assert estimate_tokens(text) >= get_counter().count(text)


@pytest.mark.parametrize("n", [0, 1, 5, 63, 64, 200])
def test_count_many_matches_count(n: int) -> None:
    rng = random.Random(n)
    texts = [BIO_TEXT[rng.randrange(len(BIO_TEXT)) :] for _ in range(n)]
    for counter in (get_counter(), get_counter(ESTIMATE)):
        assert counter.count_many(texts) == [counter.count(t) for t in texts]
        assert counter.count_many(tuple(texts)) == [counter.count(t) for t in texts]


# ---- truncate -----------------------------------------------------------------------------

SENTENCE = "The phosphorylation of p53 by ATM stabilises it."


@pytest.mark.parametrize(
    ("max_tokens", "expected"),
    [
        (0, ""),
        (1, "The"),
        (2, "The"),  # 2 tokens end inside "phosphorylation": back to the whitespace
        (3, "The phosphorylation"),
        (5, "The phosphorylation of"),  # "... of p" cut back
        (8, "The phosphorylation of p53 by ATM"),
        (12, SENTENCE),
        (1000, SENTENCE),
    ],
)
def test_truncate_examples(max_tokens: int, expected: str) -> None:
    assert get_counter().truncate(SENTENCE, max_tokens) == expected


def test_truncate_one_long_word_cuts_on_a_token_boundary() -> None:
    counter = get_counter()
    word = "supercalifragilisticexpialidocious"
    head = counter.truncate(word, 3)
    assert head and word.startswith(head) and head != word
    assert counter.count(head) <= 3


def test_truncate_never_splits_a_character() -> None:
    counter = get_counter()
    text = "🧬🧬🧬細胞細胞"
    for n in range(12):
        head = counter.truncate(text, n)
        assert text.startswith(head) and counter.count(head) <= n


def test_truncate_rejects_negative() -> None:
    with pytest.raises(ValueError):
        get_counter().truncate("x", -1)


def test_truncate_estimate_counter() -> None:
    counter = get_counter(ESTIMATE)
    head = counter.truncate(BIO_TEXT, 40)
    assert BIO_TEXT.startswith(head) and 0 < counter.count(head) <= 40
    assert not head[-1].isspace()
    assert BIO_TEXT[len(head)].isspace()  # ended on a word boundary


@settings(max_examples=300, deadline=None)
@given(text=st.text(), max_tokens=st.integers(min_value=0, max_value=40))
def test_truncate_property(text: str, max_tokens: int) -> None:
    for counter in (get_counter(), get_counter(ESTIMATE)):
        head = counter.truncate(text, max_tokens)
        assert text.startswith(head)
        assert counter.count(head) <= max_tokens
        if counter.count(text) <= max_tokens:
            assert head == text


# ---- the estimate ---------------------------------------------------------------------------


@settings(max_examples=1000, deadline=None)
@given(st.text())
def test_estimate_never_below_cl100k_on_random_text(text: str) -> None:
    assert estimate_tokens(text) >= get_counter().count(text)


_WORDS_TEXT = (
    "the of and to in is that for it as with was on by gene genes protein expression cell cells "
    "TP53 BRCA1 KRAS EGFR p53 mRNA DNA RNA ENSG00000141510 rs1042522 GO:0006915 c.215C>G "
    "p.Arg273His phosphorylation transcriptional apoptosis ACGTTGCA AUGGCC 3.2 µM 95% ( ) , . ; : "
    '{ } [ ] " = -> def return None True 0x1F 1e-5 α β 細胞 🧬'
)
_WORDS = _WORDS_TEXT.split()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=60), st.sampled_from([" ", "\n", ", ", "\t", "_"]))
def test_estimate_never_below_cl100k_on_word_soup(words: list[str], sep: str) -> None:
    text = sep.join(words)
    assert estimate_tokens(text) >= get_counter().count(text)


def _samples() -> dict[str, str]:
    rng = random.Random(7)
    dna = "".join(rng.choice("ACGT") for _ in range(6000))
    protein = "".join(rng.choice("ACDEFGHIKLMNPQRSTVWY") for _ in range(3000))
    records = [
        {
            "id": f"ENSG{rng.randrange(10**11):011d}",
            "symbol": rng.choice(["TP53", "KRAS", "MYC"]),
            "score": round(rng.random(), 4),
            "pos": {"chrom": f"chr{rng.randint(1, 22)}", "start": rng.randint(1, 10**8)},
        }
        for _ in range(100)
    ]
    return {
        "bio_prose": BIO_TEXT * 5,
        "english": (Path(json.__file__).read_text().split('"""')[1]) * 3,  # json's docstring
        "python": Path(json.__file__).read_text() + Path(textwrap.__file__).read_text(),
        "json_indented": json.dumps(records, indent=2),
        "json_compact": json.dumps(records, separators=(",", ":")),
        "fasta_dna": ">chr17 TP53\n" + "\n".join(dna[i : i + 60] for i in range(0, len(dna), 60)),
        "dna_lower": dna.lower(),
        "fasta_protein": ">sp|P04637|P53_HUMAN\n"
        + "\n".join(protein[i : i + 60] for i in range(0, len(protein), 60)),
        "identifiers": "\n".join(
            f"ENSG{rng.randrange(10**11):011d}\tNM_{rng.randrange(10**6):06d}.{rng.randint(1, 9)}"
            f"\trs{rng.randrange(10**9)}\tchr{rng.randint(1, 22)}:{rng.randrange(10**8)}"
            for _ in range(300)
        ),
        "cjk": "p53蛋白是一种肿瘤抑制因子，它在细胞周期调控中起着关键作用。がん抑制遺伝子TP53の変異。" * 20,
        "emoji": "🧬🔬🧪💊🦠 DNA 👨‍👩‍👧 👍🏽 " * 50,
        "hex_uuid": " ".join(f"{rng.getrandbits(128):032x}" for _ in range(200)),
    }


@pytest.mark.parametrize("name", list(_samples()))
def test_estimate_is_conservative_and_useful_on_typical_text(name: str) -> None:
    text = _samples()[name]
    real = get_counter().count(text)
    est = estimate_tokens(text)
    assert real <= est <= 3 * real, (name, real, est)


def test_estimate_basics() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("the") == 1
    assert estimate_tokens("12345678") == 3  # digits go in groups of three
    assert estimate_tokens("🧬") == 4  # a non-ASCII character costs its UTF-8 bytes
    assert TokenCounter(ESTIMATE).count("hello world") == estimate_tokens("hello world")
