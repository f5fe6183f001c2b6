"""A small TF-IDF: the tutorials' word-matching proxy for how well texts can be told apart.

A real model reads far better than this, so its figures say how much a description gives a word
matcher to go on, not what a model will do. The method, so its numbers can be reproduced by hand:

- Words are lowercase runs of letters and digits that start with a letter and are at least two
  characters long, without common English function words; figures such as "12" are not words. A
  tool name's underscores and dashes split it into words. No stemming: "forecast" and "forecasts"
  differ, and "mi" is not "miles".
- A word's weight in a text is its count times idf = ln((1 + n) / (1 + df)) + 1, where n is the
  number of documents and df how many contain the word (scikit-learn's smoothed default).
- Vectors are scaled to unit length, so the cosine of two texts is their dot product, 0 to 1.

Written here rather than taken from scikit-learn: it is thirty lines, and scikit-learn would bring
numpy and scipy, over 100 MB, into an audit that never needs them otherwise.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from mcp_types import Tool

from instruments.audit.schemas import properties

# fmt: off
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "could", "do", "does", "for", "from",
    "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or",
    "our", "so", "than", "that", "the", "their", "them", "then", "there", "these", "this", "those",
    "to", "was", "we", "what", "when", "where", "which", "who", "will", "with", "would", "you", "your"
})
# fmt: on

Vector = dict[str, float]
INDEXED_ALL, COMMON_WORD = 200, 50


def words(text: str) -> list[str]:
    return [word for word in re.findall(r"[a-z][a-z0-9]+", text.lower()) if word not in STOP_WORDS]


class TfIdf:
    """Weights learned from `documents`; `scores(text)` is the cosine of `text` with each of them."""

    def __init__(self, documents: Sequence[str]) -> None:
        tokenized = [words(document) for document in documents]
        frequency = Counter(word for document in tokenized for word in set(document))
        self.idf = {word: math.log((1 + len(documents)) / (1 + df)) + 1 for word, df in frequency.items()}
        self.vectors = [self._vector(document) for document in tokenized]

    def _vector(self, document: list[str]) -> Vector:
        # Words no document has match nothing, so they are left out rather than weighted.
        weights = {
            word: count * self.idf[word] for word, count in Counter(document).items() if word in self.idf
        }
        length = math.sqrt(sum(weight * weight for weight in weights.values()))
        return {word: weight / length for word, weight in weights.items()} if length else {}

    def scores(self, text: str) -> list[float]:
        query = self._vector(words(text))
        return [cosine(query, vector) for vector in self.vectors]

    def sharing_pairs(self) -> dict[tuple[int, int], float]:
        """The cosine of every pair of documents that share a word, found through a word index.

        In a set of more than INDEXED_ALL documents, a word found in more than COMMON_WORD documents
        does not join a pair on its own, so a word every tool has cannot make the work quadratic; a
        pair that only such words join is not compared. Each compared pair's cosine is exact.
        """
        cap = len(self.vectors) if len(self.vectors) <= INDEXED_ALL else COMMON_WORD
        postings: dict[str, list[int]] = {}
        for index, vector in enumerate(self.vectors):
            for word in vector:
                postings.setdefault(word, []).append(index)
        pairs: dict[tuple[int, int], float] = {}
        for documents in postings.values():
            if len(documents) > cap:
                continue
            for position, first in enumerate(documents):
                for second in documents[position + 1 :]:
                    if (first, second) not in pairs:
                        pairs[(first, second)] = self.similarity(first, second)
        return pairs

    def similarity(self, first: int, second: int) -> float:
        """The cosine of two of the documents."""
        return cosine(self.vectors[first], self.vectors[second])


def cosine(first: Vector, second: Vector) -> float:
    return sum(weight * second[word] for word, weight in first.items() if word in second)


def name_and_description(tool: Tool) -> str:
    """A tool as the near-duplicate check reads it: its name as words, then its description."""
    return f"{re.sub(r'[_-]+', ' ', tool.name)} {tool.description or ''}"


def everything_read(tool: Tool) -> str:
    """A tool as the selection proxy reads it: all the text a model reads, parameter descriptions too."""
    described = [str(node.get("description", "")) for node in properties(tool.input_schema).values()]
    return " ".join([name_and_description(tool), *described])
