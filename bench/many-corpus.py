"""The 100,000-file corpus of the many-small-files benchmarks (bench/compare.sh many, bench/many-extract.sh):
100 folders of 1,000 text files of 4 to 80 random words each (about 250 bytes), the same on every run.
Usage: python3 bench/many-corpus.py FOLDER"""
import os, random, sys
random.seed(100000)
words = [''.join(random.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(random.randint(2, 10))) for _ in range(3000)]
for d in range(100):
    folder = os.path.join(sys.argv[1], 'd%03d' % d)
    os.makedirs(folder)
    for f in range(1000):
        with open(os.path.join(folder, 'f%04d.txt' % f), 'w') as out:
            out.write(' '.join(random.choice(words) for _ in range(random.randint(4, 80))))
