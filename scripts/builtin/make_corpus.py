#!/usr/bin/python3
"""Writes the teaching corpus of the built-in model, the same every time (seeded): short stories with two names
whose answer is the name not repeated, repeated sequences that reward copying, simple grammar and counting, and a
Chinese part. Also writes the held-out name stories the tests check: their name pairs never meet in the corpus.

usage: make_corpus.py CORPUS_TXT HELDOUT_JSON
  CORPUS_TXT    documents separated by a line holding only <|doc|>
  HELDOUT_JSON  [{"text": prompt, "right": name, "wrong": name}, ...] (100 stories)
"""

import json
import random
import sys

SEED = 37
DOCUMENTS = 60000

NAMES = ["Mary", "John", "Anna", "Tom", "Lucy", "Paul", "Emma", "Mark", "Kate", "James", "Sarah", "David", "Alice",
         "Peter", "Laura", "Simon", "Rose", "Jack", "Julia", "Max", "Clara", "Sam", "Nina", "Ben", "Grace", "Leo",
         "Helen", "Adam", "Eva", "Oscar"]
PLACES = ["store", "park", "school", "garden", "station", "market", "library", "beach", "office", "house",
          "river", "kitchen", "museum", "shop", "farm", "church"]
OBJECTS = ["drink", "book", "ball", "cake", "letter", "flower", "key", "hat", "pen", "ring", "gift", "bag", "cup",
           "apple", "map", "coin"]
# {A} is the answer, {B} the name said twice; {P} a place, {O} a thing.
STORIES = [
    "When {A} and {B} went to the {P}, {B} gave a {O} to",
    "When {B} and {A} went to the {P}, {B} gave a {O} to",
    "Then, {A} and {B} were at the {P}. {B} handed the {O} to",
    "Then, {B} and {A} were at the {P}. {B} handed the {O} to",
    "After {A} and {B} arrived at the {P}, {B} showed the {O} to",
    "After {B} and {A} arrived at the {P}, {B} showed the {O} to",
    "{A} and {B} were working at the {P}. {B} decided to give a {O} to",
    "{B} and {A} were working at the {P}. {B} decided to give a {O} to",
    "While {A} and {B} were in the {P}, {B} threw the {O} to",
    "While {B} and {A} were in the {P}, {B} threw the {O} to",
]

CN_NAMES = ["小明", "小红", "小华", "小丽", "小刚", "小芳", "小军", "小雪", "小强", "小兰"]
CN_PLACES = ["商店", "公园", "学校", "花园", "车站", "市场", "图书馆", "海边"]
CN_OBJECTS = ["一瓶水", "一本书", "一个球", "一块蛋糕", "一封信", "一朵花", "一把钥匙", "一顶帽子"]
CN_STORIES = [
    "{A}和{B}去了{P}，{B}把{O}给了{A}。",
    "{B}和{A}去了{P}，{B}把{O}给了{A}。",
    "{A}和{B}在{P}，{B}把{O}送给了{A}。",
]
CN_DIGITS = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十"]
CN_SENTENCES = ["我喜欢吃苹果。", "今天天气很好。", "他在学校学习。", "我们一起去公园。", "妈妈在厨房做饭。",
                "小猫在睡觉。", "这本书很有意思。", "老师在教室里。", "我有两个朋友。", "明天我们去海边。"]

NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
           "twelve"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
LETTERS = list("abcdefghijklmnopqrstuvwxyz")

ANIMALS = [("cat", "cats"), ("dog", "dogs"), ("bird", "birds"), ("child", "children"), ("man", "men"),
           ("woman", "women"), ("teacher", "teachers"), ("horse", "horses"), ("fox", "foxes")]
VERBS = [("runs", "run"), ("sleeps", "sleep"), ("sings", "sing"), ("jumps", "jump"), ("eats", "eat"),
         ("plays", "play"), ("waits", "wait")]
ADJECTIVES = ["big", "small", "happy", "old", "young", "red", "quiet", "brown", "tired", "little"]
WHERE = ["in the park", "on the mat", "at home", "by the river", "under the tree", "in the garden",
         "near the house", "after lunch"]


def heldout_pair(a, b):
    """The name pairs kept for the tests (about one in nine, either order)."""
    i, j = sorted((NAMES.index(a), NAMES.index(b)))
    return (i * 7 + j * 3) % 9 == 0


def two_names(rng, heldout):
    while True:
        a, b = rng.sample(NAMES, 2)
        if heldout_pair(a, b) == heldout:
            return a, b


def name_story(rng):
    a, b = two_names(rng, False)
    text = rng.choice(STORIES).format(A=a, B=b, P=rng.choice(PLACES), O=rng.choice(OBJECTS))
    return text + " " + a + "."


def chinese_story(rng):
    a, b = rng.sample(CN_NAMES, 2)
    return rng.choice(CN_STORIES).format(A=a, B=b, P=rng.choice(CN_PLACES), O=rng.choice(CN_OBJECTS))


def random_word(rng):
    return "".join(rng.choice(LETTERS) for _ in range(rng.randint(2, 6)))


def repeated_sequence(rng):
    """A random sequence of words, then the same again (sometimes a third time): only copying predicts the repeat."""
    pool = NAMES + PLACES + OBJECTS + NUMBERS + ADJECTIVES
    words = [rng.choice(pool) if rng.random() < 0.6 else random_word(rng) for _ in range(rng.randint(4, 24))]
    once = " " + " ".join(words)
    return once * rng.choice((2, 2, 3))


def counting(rng):
    kind = rng.randrange(5)
    if kind == 0:
        start = rng.randrange(0, 6)
        return " ".join(NUMBERS[start:start + rng.randint(4, 7)])
    if kind == 1:
        start = rng.randint(1, 60)
        return " ".join(str(k) for k in range(start, start + rng.randint(5, 12)))
    if kind == 2:
        start = rng.randrange(len(DAYS))
        return ", ".join(DAYS[(start + k) % 7] for k in range(rng.randint(3, 7)))
    if kind == 3:
        start = rng.randrange(len(MONTHS))
        return ", ".join(MONTHS[(start + k) % 12] for k in range(rng.randint(3, 8)))
    start = rng.randrange(20)
    return " ".join(LETTERS[start:start + rng.randint(4, 7)])


def grammar(rng):
    """Sentences whose verb agrees with its subject: one noun or many."""
    out = []
    for _ in range(rng.randint(1, 3)):
        (one, many), (verb_one, verb_many) = rng.choice(ANIMALS), rng.choice(VERBS)
        adjective = rng.choice(ADJECTIVES) + " " if rng.random() < 0.5 else ""
        if rng.random() < 0.5:
            out.append(f"The {adjective}{one} {verb_one} {rng.choice(WHERE)}.")
        else:
            out.append(f"The {adjective}{many} {verb_many} {rng.choice(WHERE)}.")
    return " ".join(out)


def chinese(rng):
    kind = rng.randrange(3)
    if kind == 0:
        return chinese_story(rng)
    if kind == 1:
        start = rng.randrange(4)
        return "、".join(CN_DIGITS[start:start + rng.randint(4, 6)]) + "。"
    return "".join(rng.sample(CN_SENTENCES, rng.randint(1, 3)))


KINDS = [(name_story, 0.35), (repeated_sequence, 0.25), (counting, 0.12), (grammar, 0.16), (chinese, 0.12)]


def document(rng):
    make = rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0]
    return make(rng)


def heldout_stories(rng, count=100):
    out = []
    for _ in range(count):
        a, b = two_names(rng, True)
        text = rng.choice(STORIES).format(A=a, B=b, P=rng.choice(PLACES), O=rng.choice(OBJECTS))
        out.append({"text": text, "right": a, "wrong": b})
    return out


def main():
    corpus_path, heldout_path = sys.argv[1:3]
    rng = random.Random(SEED)
    with open(corpus_path, "w", encoding="utf-8") as f:
        for _ in range(DOCUMENTS):
            f.write(document(rng) + "\n<|doc|>\n")
    with open(heldout_path, "w", encoding="utf-8") as f:
        json.dump(heldout_stories(random.Random(SEED + 1)), f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
