/** Tokens as people read them (core/tokentext) and the logits of any position (Gpt2Forward::logitsAt). */

#include "core/text/bpe.h"
#include "core/models/gpt2forward.h"
#include "core/text/tokentext.h"
#include "gpt2folder_random.h"

#include <QTemporaryDir>
#include <QTest>

using namespace core;

class TestTokenText : public QObject {
    Q_OBJECT
private slots:
    void bytesOfVocabularyEntries();
    void readableTokens();
    void logitsOfEveryPositionAreThoseOfItsPrefix();
    void candidatesAreTheSoftmaxOfTheLogits();
};

void TestTokenText::bytesOfVocabularyEntries()
{
    QCOMPARE(*tokenBytes("Ġcat"), std::string(" cat"));
    QCOMPARE(*tokenBytes("Ċ"), std::string("\n"));
    // 中 is E4 B8 AD: GPT-2's alphabet writes those bytes as ä, ¸ and Ń.
    const auto& alphabet = Bpe::bytesToUnicode();
    const std::string zhong = alphabet[0xE4] + alphabet[0xB8] + alphabet[0xAD];
    QCOMPARE(*tokenBytes(zhong), std::string("\xE4\xB8\xAD"));
    QVERIFY(!tokenBytes("\xE4\xB8\xAD"));  // 中 itself is not of the byte alphabet
}

void TestTokenText::readableTokens()
{
    const auto& alphabet = Bpe::bytesToUnicode();
    QCOMPARE(readableToken("Ġcat"), std::string("␣cat"));
    QCOMPARE(readableToken("ĠĠ"), std::string("␣␣"));
    QCOMPARE(readableToken("Ċ"), std::string("↵"));
    QCOMPARE(readableToken("ĉ"), std::string("⇥"));
    QCOMPARE(readableToken("cat"), std::string("cat"));
    // A whole character reads as itself, a fragment of one as its bytes, together in one bracket.
    QCOMPARE(readableToken(alphabet[0xE4] + alphabet[0xB8] + alphabet[0xAD]), std::string("中"));
    QCOMPARE(readableToken(alphabet[0xE4] + alphabet[0xB8]), std::string("<E4 B8>"));
    QCOMPARE(readableToken(alphabet[0xAD]), std::string("<AD>"));
    QCOMPARE(readableToken("Ġ" + alphabet[0xE4]), std::string("␣<E4>"));
    QCOMPARE(readableToken(alphabet[0x00]), std::string("<00>"));
    // An overlong form (C0 80) is no character.
    QCOMPARE(readableToken(alphabet[0xC0] + alphabet[0x80]), std::string("<C0 80>"));
    QCOMPARE(readableToken("<|endoftext|>"), std::string("<|endoftext|>"));
}

void TestTokenText::logitsOfEveryPositionAreThoseOfItsPrefix()
{
    QTemporaryDir dir;
    testutil::write(testutil::randomGpt2Folder("F32", "", 2, 16, 2), dir.path().toStdString());
    std::string error;
    auto checkpoint = Gpt2Checkpoint::load(dir.path().toStdString(), error);
    QVERIFY2(checkpoint, error.c_str());
    const std::vector<int> ids = {72, 101, 108, 108, 111, 32, 119};
    Gpt2Forward whole(checkpoint);
    QVERIFY(whole.setTokens(ids, error));
    whole.run();
    QVERIFY(whole.logitsAt(int(ids.size()) - 1) == whole.logits());
    // Attention is causal: the logits after position i are those of the text cut after token i.
    for (int i = 0; i + 1 < int(ids.size()); ++i) {
        Gpt2Forward prefix(checkpoint);
        QVERIFY(prefix.setTokens(std::vector<int>(ids.begin(), ids.begin() + i + 1), error));
        prefix.run();
        const FloatMatrix at = whole.logitsAt(i);
        QCOMPARE(at.cols(), prefix.logits().cols());
        const double scale = prefix.logits().cwiseAbs().maxCoeff();
        QVERIFY2((at - prefix.logits()).cwiseAbs().maxCoeff() <= 1e-5 * scale, qPrintable(QString::number(i)));
    }
}

void TestTokenText::candidatesAreTheSoftmaxOfTheLogits()
{
    FloatMatrix logits(1, 4);
    logits << 1.0f, 3.0f, 3.0f, -2.0f;
    const double sum = std::exp(1.0) + 2 * std::exp(3.0) + std::exp(-2.0);
    const auto top = topCandidates(logits, 3);
    QCOMPARE(int(top.size()), 3);
    QCOMPARE(top[0].id, 1);  // a tie goes to the lower id
    QCOMPARE(top[1].id, 2);
    QCOMPARE(top[2].id, 0);
    QVERIFY(std::abs(top[0].probability - std::exp(3.0) / sum) < 1e-15);
    QVERIFY(std::abs(candidateProbability(logits, 3) - std::exp(-2.0) / sum) < 1e-15);
    QCOMPARE(candidateProbability(logits, 4), 0.0);
    const std::vector<double> some = candidateProbabilities(logits, {3, 1, 4, -1});
    QCOMPARE(int(some.size()), 4);
    QCOMPARE(some[0], candidateProbability(logits, 3));
    QCOMPARE(some[1], top[0].probability);
    QCOMPARE(some[2], 0.0);
    QCOMPARE(some[3], 0.0);
}

QTEST_APPLESS_MAIN(TestTokenText)
#include "tst_tokentext.moc"
