"""The secret corpus: credential shapes that must never be committed, and biology look-alikes
that must never be refused. Used by tests/test_secrets.py (every committed field) and
benchmarks/secret_detectors.py (the detector comparison in docs/reliability.md).

Token bodies are made here from a fixed seed rather than written out, so they look random (the
entropy real keys have) without this file holding anything that looks like a live key.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def tok(label: str, n: int, alphabet: str = ALNUM) -> str:
    """``n`` characters of ``alphabet``, the same every run for the same ``label``."""
    out: list[str] = []
    counter = 0
    while len(out) < n:
        digest = hashlib.sha256(f"{label}/{counter}".encode()).digest()
        out.extend(alphabet[b % len(alphabet)] for b in digest)
        counter += 1
    return "".join(out[:n])


@dataclass(frozen=True)
class Shape:
    name: str
    text: str  # as a person or an agent would paste it
    needle: str  # the part that must never reach git (nor stdout under --redact)


def _pem(kind: str, label: str, lines: int = 6) -> str:
    body = "\n".join(tok(f"{label}{i}", 64, B64) for i in range(lines))
    return f"-----BEGIN {kind}-----\n{body}\n{tok(label + 'end', 24, B64)}==\n-----END {kind}-----"


_RSA = _pem("RSA PRIVATE KEY", "rsa")
_OPENSSH = _pem("OPENSSH PRIVATE KEY", "openssh")
_EC = _pem("EC PRIVATE KEY", "ec", 3)
_PKCS8 = _pem("PRIVATE KEY", "pkcs8")
_PGP = _pem("PGP PRIVATE KEY BLOCK", "pgp")
_PUTTY = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261101\n"
          f"Public-Lines: 2\n{tok('putty-pub', 64, B64)}\n{tok('putty-pub2', 20, B64)}\nPrivate-Lines: 1\n"
          f"{tok('putty-priv', 44, B64)}\nPrivate-MAC: {tok('putty-mac', 64, HEX)}")
_JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        + base64.urlsafe_b64encode(b'{"sub":"lims-svc","iat":1767225600}').decode().rstrip("=")
        + "." + tok("jwt-sig", 43, URLSAFE))
_BASIC = base64.b64encode(b"lims-admin:Wq8#zLp2!vRt").decode()

SHAPES: list[Shape] = [
    # --- the shapes issue 14 found missing -----------------------------------------------------
    Shape("env password", "Deploy LIMS with DB_PASSWORD=Hunter2Hunter2xyz", "Hunter2Hunter2xyz"),
    Shape("redis URL password", "redis://:Red1sPassw0rdX@cache.lab.internal:6379/0", "Red1sPassw0rdX"),
    Shape("quoted JSON password", '{"user": "lims", "password": "Qu0tedPassw0rd!"}', "Qu0tedPassw0rd"),
    Shape("AWS STS JSON secret", '{"AccessKeyId": "ASIA' + tok("sts-id", 16, UPPER) + '", "SecretAccessKey": "'
          + tok("sts-secret", 40, B64) + '"}', tok("sts-secret", 40, B64)),
    Shape("AWS session token", "aws_session_token=IQoJb3JpZ2luX2VjE" + tok("sts-session", 180, B64),
          tok("sts-session", 180, B64)),
    Shape("Slack webhook", "https://hooks.slack.com/services/T" + tok("slk-t", 10, UPPER) + "/B"
          + tok("slk-b", 10, UPPER) + "/" + tok("slk-w", 24), tok("slk-w", 24)),
    Shape("Slack app token", "xapp-1-A0" + tok("xapp-a", 9, UPPER) + "-1234567890123-" + tok("xapp", 64, HEX),
          tok("xapp", 64, HEX)),
    Shape("Google OAuth client secret", "client GOCSPX-" + tok("gocspx", 28, URLSAFE), tok("gocspx", 28, URLSAFE)),
    Shape("Google OAuth access token", "ya29.a0" + tok("ya29", 150, URLSAFE), tok("ya29", 150, URLSAFE)),
    Shape("Stripe webhook secret", "whsec_" + tok("whsec", 32), tok("whsec", 32)),
    Shape("Azure SAS", "https://labdata.blob.core.windows.net/runs?sv=2022-11-02&ss=b&srt=co&sp=rl"
          "&se=2026-12-01T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig=" + tok("sas", 43, B64).replace("+", "%2B")
          + "%3D", tok("sas", 43, B64).replace("+", "%2B")),
    Shape("PuTTY private key", _PUTTY, tok("putty-priv", 44, B64)),
    Shape("HTTP Basic auth", f"Authorization: Basic {_BASIC}", _BASIC),
    Shape("SendGrid key", "SG." + tok("sg1", 22, URLSAFE) + "." + tok("sg2", 43, URLSAFE), tok("sg2", 43, URLSAFE)),
    Shape("Twilio API key", "twilio SK" + tok("twilio", 32, HEX), tok("twilio", 32, HEX)),
    Shape("Databricks token", "dapi" + tok("dapi", 32, HEX), tok("dapi", 32, HEX)),
    Shape("Telegram bot token", "bot 5081234567:AA" + tok("tg", 33, URLSAFE), tok("tg", 33, URLSAFE)),
    Shape("DigitalOcean token", "dop_v1_" + tok("dop", 64, HEX), tok("dop", 64, HEX)),
    Shape("GitHub token in env", "GITHUB_TOKEN=" + tok("ghenv", 40, HEX), tok("ghenv", 40, HEX)),
    Shape("Basic auth password with a quote", 'pwd=abcd"efg' + tok("pwdq", 8), 'abcd"efg' + tok("pwdq", 8)),
    # --- the shapes the old hand-written list found ----------------------------------------------
    Shape("AWS access key id", "key AKIA" + tok("akia", 16, B32) + " in the notebook", "AKIA" + tok("akia", 16, B32)),
    Shape("AWS secret key", "aws_secret_access_key = " + tok("awssk", 40, B64), tok("awssk", 40, B64)),
    Shape("Google API key", "maps key AIza" + tok("aiza", 35, URLSAFE), tok("aiza", 35, URLSAFE)),
    Shape("Azure storage key", "DefaultEndpointsProtocol=https;AccountName=lab;AccountKey="
          + tok("azsk", 86, B64) + "==", tok("azsk", 86, B64)),
    Shape("GitHub PAT", "token ghp_" + tok("ghp", 36), tok("ghp", 36)),
    Shape("GitHub fine-grained PAT", "github_pat_11" + tok("ghfg", 20, UPPER) + "_" + tok("ghfg2", 59),
          tok("ghfg2", 59)),
    Shape("GitHub OAuth token", "gho_" + tok("gho", 36), tok("gho", 36)),
    Shape("GitHub app token", "ghs_" + tok("ghs", 36), tok("ghs", 36)),
    Shape("GitLab PAT", "glpat-" + tok("glpat", 20, URLSAFE), tok("glpat", 20, URLSAFE)),
    Shape("Slack bot token", "xoxb-1234567890123-1234567890123-" + tok("xoxb", 24), tok("xoxb", 24)),
    Shape("Slack user token", "xoxp-1234567890123-1234567890123-1234567890123-" + tok("xoxp", 32, HEX),
          tok("xoxp", 32, HEX)),
    Shape("Anthropic key", "sk-ant-api03-" + tok("ant", 93, URLSAFE) + "AA", tok("ant", 93, URLSAFE)),
    Shape("OpenAI project key", "sk-proj-" + tok("oaip", 74, URLSAFE) + "T3BlbkFJ" + tok("oaip2", 74, URLSAFE),
          tok("oaip", 74, URLSAFE)),
    Shape("OpenAI legacy key", "sk-" + tok("oai1", 20) + "T3BlbkFJ" + tok("oai2", 20), tok("oai1", 20)),
    # compress trial: pasted into a conversation without the T3BlbkFJ marker gitleaks' rule needs
    Shape("OpenAI project key, no marker", "sk-proj-" + tok("oaip3", 120, URLSAFE), tok("oaip3", 120, URLSAFE)),
    Shape("OpenAI service account key", "sk-svcacct-" + tok("oais", 100, URLSAFE), tok("oais", 100, URLSAFE)),
    Shape("Hugging Face token", "hf_" + tok("hf", 34, ALNUM[:52]), tok("hf", 34, ALNUM[:52])),
    Shape("Stripe live key", "sk_live_" + tok("stripe", 24), tok("stripe", 24)),
    Shape("Stripe restricted key", "rk_live_" + tok("stripe-rk", 24), tok("stripe-rk", 24)),
    Shape("npm token", "npm_" + tok("npm", 36), tok("npm", 36)),
    Shape("PyPI token", "pypi-AgEIcHlwaS5vcmc" + tok("pypi", 60, URLSAFE), tok("pypi", 60, URLSAFE)),
    Shape("JSON Web Token", f"cookie {_JWT}", _JWT.rsplit(".", 1)[1]),
    Shape("RSA private key", _RSA, tok("rsa3", 64, B64)),
    Shape("OpenSSH private key", _OPENSSH, tok("openssh2", 64, B64)),
    Shape("EC private key", _EC, tok("ec1", 64, B64)),
    Shape("PKCS#8 private key", _PKCS8, tok("pkcs85", 64, B64)),
    Shape("PGP private key", _PGP, tok("pgp0", 64, B64)),
    Shape("PEM without its END line", "-----BEGIN RSA PRIVATE KEY-----\n" + tok("cut1", 64, B64) + "\n"
          + tok("cut2", 64, B64), tok("cut2", 64, B64)),
    Shape("postgres URL password", "postgres://analyst:s3cretPass@db.lab.internal:5432/lims", "s3cretPass"),
    Shape("mongodb URL password", "mongodb+srv://etl:" + tok("mongo", 16) + "@cluster0.lab.mongodb.net/runs",
          tok("mongo", 16)),
    Shape("https URL password", "https://user:hunter22xyz@files.lab.example/data", "hunter22xyz"),
    Shape("bearer token", "Authorization: Bearer " + tok("bearer", 40, URLSAFE), tok("bearer", 40, URLSAFE)),
    Shape("YAML password", "password: Tr0ub4dor&3x", "Tr0ub4dor&3x"),
    Shape("PASSWD assignment", "PASSWD=Tr0ub4dor&3y", "Tr0ub4dor&3y"),
    Shape("api_key assignment", "api_key = " + tok("apikey", 32, HEX), tok("apikey", 32, HEX)),
    Shape("client_secret", "client_secret: '" + tok("clsec", 24) + "'", tok("clsec", 24)),
    Shape("access_token", "access-token=" + tok("acctok", 30), tok("acctok", 30)),
    Shape("Django SECRET_KEY", 'export SECRET_KEY="' + tok("django", 50, B64) + '"', tok("django", 50, B64)),
    Shape("NCBI API key", "NCBI_API_KEY=" + tok("ncbi", 36, HEX), tok("ncbi", 36, HEX)),
    Shape("Galaxy API key", "galaxy api key: " + tok("galaxy", 32, HEX), tok("galaxy", 32, HEX)),
    Shape("Mailgun key", "mailgun key-" + tok("mailgun", 32, HEX), tok("mailgun", 32, HEX)),
    Shape("Shopify token", "shpat_" + tok("shpat", 32, HEX), tok("shpat", 32, HEX)),
    Shape("Atlassian token", "ATATT3xFfGF0" + tok("atl", 171, URLSAFE) + "=" + tok("atl2", 8, HEX.upper()),
          tok("atl", 171, URLSAFE)),
    Shape("Vault token", "VAULT_TOKEN=hvs." + tok("hvs", 90, URLSAFE), tok("hvs", 90, URLSAFE)),
    Shape("age secret key", "AGE-SECRET-KEY-1" + tok("age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
          tok("age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
    Shape("GitLab runner token", "glrt-" + tok("glrt", 20, URLSAFE), tok("glrt", 20, URLSAFE)),
    Shape("Linear API key", "lin_api_" + tok("linear", 40), tok("linear", 40)),
    Shape("Perplexity key", "pplx-" + tok("pplx", 48), tok("pplx", 48)),
    Shape("Datadog API key", "DD_API_KEY=" + tok("dd", 32, HEX), tok("dd", 32, HEX)),
    Shape("GCP service account", '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
          + tok("gcpsa", 64, B64) + '\\n-----END PRIVATE KEY-----\\n"}', tok("gcpsa", 64, B64)),
    Shape("netrc password", "machine ftp.lab.example login etl password " + tok("netrc", 14), tok("netrc", 14)),
    Shape("mysql -p password", "mysql -u root -pS3cr3tMysqlPw lims", "S3cr3tMysqlPw"),
    Shape("Azure AD client secret", "AZURE_CLIENT_SECRET=" + tok("azad", 3) + "8Q~" + tok("azad2", 31, URLSAFE),
          tok("azad2", 31, URLSAFE)),
    # --- personal data in clinical contexts --------------------------------------------------------
    Shape("patient name", "patient_name: John Smith", "John Smith"),
    Shape("date of birth", "DOB: 1980-04-12", "1980-04-12"),
    Shape("medical record number", "MRN: 00123456", "00123456"),
    Shape("social security number", "SSN: 123-45-6789", "123-45-6789"),
    Shape("NHS number", "NHS number: 943 476 5919", "943 476 5919"),
]

#: Biology and everyday research text that must never be refused.
LOOKALIKES: list[str] = [
    "TP53 regulates MDM2 (PMID:8319905)",
    "ENSG00000141510 and ENST00000269305.9, protein ENSP00000269305",
    "gene_key=ENSG00000141510.17",
    "GO:0008150, GO:0006915 (apoptotic process)",
    "rs7412 and rs429358 define APOE e4",
    "SRR15234567 and ERR2984773 from PRJNA736178",
    "accession: SAMN12345678",
    "accession: PRJEB23709; GEO accession GSE123456",
    "UniProt P04637 and A0A024RBG1",
    "PDB 1TUP, 6VXX and 7KRJ",
    "sha256 of sample_R1.fastq.gz: " + hashlib.sha256(b"fastq").hexdigest(),
    "md5: " + hashlib.md5(b"bam").hexdigest() + "  HeLa_S3_ATAC_rep1.bam",
    "checksum: sha256:" + hashlib.sha256(b"vcf").hexdigest(),
    "image quay.io/biocontainers/samtools@sha256:" + hashlib.sha256(b"img").hexdigest(),
    "container digest: sha256:" + hashlib.sha256(b"img2").hexdigest(),
    "commit 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788796a5b",
    "code_commit: " + hashlib.sha1(b"code").hexdigest(),
    "ACGTACGTTTGACCAGTAGGCATCGATCGATCGATCGGCTAGCTAGCTAGCATCGGATTACAGGATTACA",
    "sgRNA_key: GACCGGAACGATCTCTTGCC",
    "MEEPQSDPSVEPPLSQETFSDLWKLLPENNVLSPLPSQAMDDLMLSPDDIEQWFTEDPGPDEAPRMPEAAPPVAPAPAAPTPAAPAPAPSWPL",
    "peptides SIINFEKL and GILGFVFTL (HLA-A*02:01)",
    "HeLa_S3_ATAC_rep1.fastq.gz, K562_CTCF_ChIP_rep2.bam, MCF-7_RNAseq_R1.fq.gz",
    "A549_KRAS_G12S_sgRNA_counts.tsv",
    "10x barcode AAACCCAAGAAACACT-1",
    "doi:10.1038/s41586-020-2649-2 and 10.5281/zenodo.1234567",
    "ORCID 0000-0002-1825-0097",
    "CHEMBL25, E-MTAB-1234, EGAS00001004321",
    "InChIKey BSYNRYMUTXBXSQ-UHFFFAOYSA-N",
    "SMILES CC(=O)OC1=CC=CC=C1C(=O)O",
    "NM_000546.6:c.215C>G (p.Arg72Pro)",
    "RRID:CVCL_0030 (HeLa), Cellosaurus CVCL_0023",
    "@A00123:8:H3JLFDSXX:1:1101:10004:1000 1:N:0:ACGTACGT+TGCATGCA",
    "read group @RG\\tID:HeLa.1\\tSM:HeLa\\tPL:ILLUMINA",
    "nextflow work/3f/2a9c1d4e5b6a7980f1e2d3c4b5a697",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "s3://lab-bucket/runs/GSE123456/matrix.h5ad",
    "https://www.ncbi.nlm.nih.gov/geo/query/acc.cgi?acc=GSE123456",
    "git@github.com:lab/pipeline.git",
    "author: Dana Okafor <dokafor@lab.example>",
    "the token budget is 2000 tokens",
    "password policy requires rotation every 90 days",
    "password: <set in the vault UI>",
    "password: ${DB_PASSWORD}",
    "api_key: {{ secrets.API_KEY }}",
    "password: ****",
    "Bearer tokens are rejected by the LIMS",
    "the AKIA prefix marks AWS keys",
    "date of birth was not recorded for mice",
    "patient name fields were removed before export",
    "key_genes: TP53,MDM2,CDKN1A,BAX,PUMA",
    "primary_key: sample_id",
    "auth_method: oauth via the institute SSO",
    "30x WGS of 200 samples, DP>=10, GQ>=20, AF>0.01",
    "created: '2026-02-17T17:05:00Z'",
    "scikit-learn and sk-learn style pipelines",
    "hf_transfer was enabled for downloads",
    "MD5 (matrix.mtx.gz) = 9e107d9d372bb6826bd81d3542a419d6",
]
