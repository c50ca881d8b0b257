/** LatestJob: one job at a time on the background pool, and of a burst of requests only the newest
 *  result is delivered; nothing after a cancel or after the job's owner is gone. */

#include "ui/document/latestjob.h"

#include <QSemaphore>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>
#include <vector>

using namespace ui;

namespace {

/** A job source: each job returns the state of the moment it was made, once the gate lets it. */
struct Source {
    int state = 0;
    std::shared_ptr<QSemaphore> gate = std::make_shared<QSemaphore>();
    std::vector<int> made;  ///< the states jobs were made for

    LatestJob<int>::Job make()
    {
        made.push_back(state);
        return [value = state, gate = gate] {
            gate->acquire();
            return value;
        };
    }
};

/** A result that counts its copies: a large one (a model session's layer) must reach deliver or discard by moves. */
struct Counted {
    static inline std::atomic<int> copies{0};
    int value = 0;
    Counted() = default;
    explicit Counted(int v) : value(v) {}
    Counted(const Counted& other) : value(other.value) { ++copies; }
    Counted(Counted&&) noexcept = default;
    Counted& operator=(const Counted& other)
    {
        value = other.value;
        ++copies;
        return *this;
    }
    Counted& operator=(Counted&&) noexcept = default;
    ~Counted() = default;
};

}  // namespace

class TestLatestJob : public QObject {
    Q_OBJECT
private slots:
    void burstDeliversOnlyTheNewest();
    void cancelDeliversNothing();
    void emptyJobIsNoRequest();
    void finishWaitsWithoutEventLoop();
    void nothingAfterDestruction();
    void resultsAreMovedNotCopied();
    void onlyTheRunningJobNobodyOvertookIsCurrent();
    void postedPartsComeFirst_data();
    void postedPartsComeFirst();
    void partsOfAnOvertakenJobAreDropped();
};

void TestLatestJob::burstDeliversOnlyTheNewest()
{
    Source source;
    std::vector<int> delivered, discarded;
    LatestJob<int> job([&] { return source.make(); }, [&](int v) { delivered.push_back(v); },
                       [&](int v) { discarded.push_back(v); });
    source.state = 1;
    job.request();
    QVERIFY(job.isRunning());
    for (int k = 2; k <= 10; ++k) {
        source.state = k;
        job.request();  // the first job still waits at the gate
    }
    QVERIFY(job.isPending());
    source.gate->release(2);
    QTRY_VERIFY(!job.isPending());
    QCOMPARE(delivered, std::vector<int>{10});
    QCOMPARE(discarded, std::vector<int>{1});
    QCOMPARE(source.made, (std::vector<int>{1, 10}));  // the states between were never computed
    QCOMPARE(job.jobsStarted(), quint64(2));
    QVERIFY(!job.isRunning());

    // A request once the last result is in starts at once and is delivered.
    source.state = 11;
    job.request();
    source.gate->release();
    QTRY_COMPARE(delivered.size(), std::size_t(2));
    QCOMPARE(delivered.back(), 11);
}

void TestLatestJob::cancelDeliversNothing()
{
    Source source;
    int delivered = 0;
    std::vector<int> discarded;
    LatestJob<int> job([&] { return source.make(); }, [&](int) { ++delivered; },
                       [&](int v) { discarded.push_back(v); });
    source.state = 5;
    job.request();
    job.cancel();
    QVERIFY(!job.isPending());
    QVERIFY(job.isRunning());
    source.gate->release();
    QTRY_VERIFY(!job.isRunning());
    QTest::qWait(20);
    QCOMPARE(delivered, 0);
    QCOMPARE(discarded, std::vector<int>{5});
}

void TestLatestJob::onlyTheRunningJobNobodyOvertookIsCurrent()
{
    // What a job shows before it ends is wanted only while that very job runs and nothing overtook it.
    Source source;
    int delivered = 0;
    LatestJob<int> job([&] { return source.make(); }, [&](int) { ++delivered; });
    QVERIFY(!job.isCurrent(1));
    job.request();
    QVERIFY(job.isCurrent(1));
    QVERIFY(!job.isCurrent(0));
    QVERIFY(!job.isCurrent(2));
    job.request();  // overtaken: the second job starts once the first is done
    QVERIFY(!job.isCurrent(1));
    source.gate->release();
    QTRY_COMPARE(job.jobsStarted(), quint64(2));
    QVERIFY(job.isCurrent(2));
    QVERIFY(!job.isCurrent(1));
    job.cancel();
    QVERIFY(!job.isCurrent(2));
    source.gate->release();
    QTRY_VERIFY(!job.isRunning());
    QVERIFY(!job.isCurrent(2));
    QCOMPARE(delivered, 0);
}

/** A job that posts 10 + state, waits for the gate, then returns state. */
LatestJob<int>::PostingJob postingJob(int state, std::shared_ptr<QSemaphore> gate, std::shared_ptr<QSemaphore> posted)
{
    return [state, gate, posted](const LatestJob<int>::Post& post) {
        post(10 + state);
        posted->release();
        gate->acquire();
        return state;
    };
}

void TestLatestJob::postedPartsComeFirst_data()
{
    QTest::addColumn<bool>("eventLoop");
    QTest::addRow("with the event loop") << true;
    QTest::addRow("waited for without one") << false;
}

void TestLatestJob::postedPartsComeFirst()
{
    // A part is delivered while the job runs when the event loop gets to it, and in any case before the result,
    // never after it.
    QFETCH(bool, eventLoop);
    auto gate = std::make_shared<QSemaphore>(), posted = std::make_shared<QSemaphore>();
    std::vector<int> delivered;
    LatestJob<int> job([&] { return postingJob(1, gate, posted); }, [&](int v) { delivered.push_back(v); }, {},
                       LatestJob<int>::Posting{});
    job.request();
    QVERIFY(posted->tryAcquire(1, 10000));
    if (eventLoop) {
        QTRY_COMPARE(delivered, std::vector<int>{11});
        QVERIFY(job.isPending());  // the part is not the result
    }
    gate->release();
    if (eventLoop)
        QTRY_VERIFY(!job.isPending());
    else
        job.finish();
    QCoreApplication::processEvents();  // a part's event still queued must not bring it again
    QCOMPARE(delivered, (std::vector<int>{11, 1}));
}

void TestLatestJob::partsOfAnOvertakenJobAreDropped()
{
    auto gate = std::make_shared<QSemaphore>(), posted = std::make_shared<QSemaphore>();
    int state = 1;
    std::vector<int> delivered, discarded;
    LatestJob<int> job([&] { return postingJob(state, gate, posted); }, [&](int v) { delivered.push_back(v); },
                       [&](int v) { discarded.push_back(v); }, LatestJob<int>::Posting{});
    job.request();
    QVERIFY(posted->tryAcquire(1, 10000));
    state = 2;
    job.request();  // before the event loop delivered the first job's part
    gate->release(2);
    QTRY_VERIFY(!job.isPending());
    QCoreApplication::processEvents();
    QCOMPARE(delivered, (std::vector<int>{12, 2}));
    QCOMPARE(discarded, (std::vector<int>{11, 1}));
}

void TestLatestJob::emptyJobIsNoRequest()
{
    int delivered = 0;
    LatestJob<int> job([] { return LatestJob<int>::Job(); }, [&](int) { ++delivered; });
    job.request();
    QVERIFY(!job.isPending());
    QVERIFY(!job.isRunning());
    QCOMPARE(job.jobsStarted(), quint64(0));
    job.finish();
    QCOMPARE(delivered, 0);
}

void TestLatestJob::finishWaitsWithoutEventLoop()
{
    Source source;
    std::vector<int> delivered;
    LatestJob<int> job([&] { return source.make(); }, [&](int v) { delivered.push_back(v); });
    source.state = 1;
    job.request();
    source.state = 2;
    job.request();
    source.gate->release(2);
    job.finish();
    QCOMPARE(delivered, std::vector<int>{2});
    QVERIFY(!job.isPending());
    QCoreApplication::processEvents();  // the watcher's late signal for a result taken already
    QCOMPARE(delivered, std::vector<int>{2});
}

void TestLatestJob::nothingAfterDestruction()
{
    auto delivered = std::make_shared<int>(0);
    auto discarded = std::make_shared<int>(0);
    {
        LatestJob<int> job(
            [] {
                return LatestJob<int>::Job([] {
                    QThread::msleep(100);
                    return 1;
                });
            },
            [delivered](int) { ++*delivered; }, [discarded](int) { ++*discarded; });
        job.request();
        QVERIFY(job.isRunning());
    }  // waits for the job, and drops its result
    QTest::qWait(50);
    QCOMPARE(*delivered, 0);
    QCOMPARE(*discarded, 0);
}


void TestLatestJob::resultsAreMovedNotCopied()
{
    Source source;
    std::vector<int> delivered, discarded;
    LatestJob<Counted> job(
        [&]() -> LatestJob<Counted>::Job {
            LatestJob<int>::Job made = source.make();
            return [made] { return Counted(made()); };
        },
        [&](Counted c) { delivered.push_back(c.value); }, [&](Counted c) { discarded.push_back(c.value); });
    Counted::copies = 0;
    source.state = 1;
    job.request();
    source.state = 2;
    job.request();
    source.gate->release(2);
    QTRY_VERIFY(!job.isPending());
    source.state = 3;
    job.request();
    source.gate->release();
    job.finish();
    QCOMPARE(delivered, (std::vector<int>{2, 3}));
    QCOMPARE(discarded, std::vector<int>{1});
    QCOMPARE(Counted::copies.load(), 0);
}

QTEST_MAIN(TestLatestJob)
#include "tst_latestjob.moc"
