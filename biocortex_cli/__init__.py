"""biocortex: a shared, symbolic memory for AI agents and scientists in biological R&D."""

__version__ = "0.1.0"
