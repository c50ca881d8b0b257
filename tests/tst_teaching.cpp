/** The teaching mode: slides of the seven steps, keyboard stepping, live with the document. */

#include "core/session/presets.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/views/teaching/teachingview.h"

#include <QDir>
#include <QSignalSpy>
#include <QTest>

class TestTeaching : public QObject {
    Q_OBJECT
private slots:
    void slidesWalkQueryOneThroughTheSevenSteps()
    {
        ui::Document doc;
        ui::ViewState view;
        ui::TeachingView teaching(&doc, &view);
        doc.waitForTrace();
        // 7 steps for query 1, then every query at once.
        QCOMPARE(teaching.slideCount(), 8);
        QList<int> steps;
        for (int i = 0; i < teaching.slideCount(); ++i) {
            teaching.setSlide(i);
            steps << teaching.currentSlide()->step;
        }
        QCOMPARE(steps, (QList<int>{1, 2, 3, 4, 5, 6, 7, 7}));
        // Step 3 shows q₁ against every key with the article's arithmetic.
        teaching.setSlide(2);
        QVERIFY(teaching.currentSlide()->arithmetic.contains(QStringLiteral("score(1,2) = q₁·k₂ = 1·4 + 0·4 + 2·0 = 4")));
        // The worked example skips the scaling and says so.
        teaching.setSlide(3);
        QVERIFY(teaching.currentSlide()->formula.contains(QStringLiteral("skipped")));
        // Step 7 ends in z₁ of SPEC §4.
        teaching.setSlide(6);
        const ui::SlideMatrix& z = teaching.currentSlide()->matrices.back();
        QCOMPARE(z.values.rows(), 1);
        QVERIFY(std::abs(z.values(0, 0) - 1.9366) < 1e-4);
        QVERIFY(std::abs(z.values(0, 1) - 6.6831) < 1e-4);
        QVERIFY(std::abs(z.values(0, 2) - 1.5951) < 1e-4);
    }

    void keysMoveAsAPresenterRemoteSends_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<int>("delta");
        QTest::addRow("right") << int(Qt::Key_Right) << 1;
        QTest::addRow("page down") << int(Qt::Key_PageDown) << 1;
        QTest::addRow("space") << int(Qt::Key_Space) << 1;
        QTest::addRow("left") << int(Qt::Key_Left) << -1;
        QTest::addRow("page up") << int(Qt::Key_PageUp) << -1;
    }

    void keysMoveAsAPresenterRemoteSends()
    {
        QFETCH(int, key);
        QFETCH(int, delta);
        ui::Document doc;
        ui::ViewState view;
        ui::TeachingView teaching(&doc, &view);
        doc.waitForTrace();
        teaching.setSlide(3);
        QSignalSpy changed(&teaching, &ui::TeachingView::slideChanged);
        QTest::keyClick(&teaching, Qt::Key(key));
        QCOMPARE(teaching.slideIndex(), 3 + delta);
        QCOMPARE(changed.size(), 1);
    }

    void escapeLeavesAndCtrlPlusZooms()
    {
        ui::Document doc;
        ui::ViewState view;
        ui::TeachingView teaching(&doc, &view);
        QSignalSpy leave(&teaching, &ui::TeachingView::leaveRequested);
        QTest::keyClick(&teaching, Qt::Key_Escape);
        QCOMPARE(leave.size(), 1);
        const double before = teaching.zoom();
        QTest::keyClick(&teaching, Qt::Key_Plus, Qt::ControlModifier);
        QVERIFY(teaching.zoom() > before);
        QTest::keyClick(&teaching, Qt::Key_Minus, Qt::ControlModifier);
        QTest::keyClick(&teaching, Qt::Key_Minus, Qt::ControlModifier);
        QVERIFY(teaching.zoom() < before);
    }

    /** Ctrl + on a full slide (concat · W_O of two heads, where texts once ran over one another and the
     *  matrices shrank): the slide stays at the largest zoom that fits and says so; Ctrl − comes back. */
    void ctrlPlusStopsWhereTheSlideNoLongerFits()
    {
        ui::Document doc;
        doc.loadSession(*core::preset("multi-head"), QString());
        ui::ViewState view;
        ui::TeachingView teaching(&doc, &view);
        teaching.resize(1280, 720);
        doc.waitForTrace();
        QTRY_COMPARE(teaching.slideCount(), 11);
        auto note = [&] {
            return std::count_if(teaching.drawnTexts().begin(), teaching.drawnTexts().end(),
                                 [](const render::DrawnText& t) { return t.part == render::SlidePart::Note; });
        };
        auto fits = [&] {
            return std::all_of(teaching.drawnTexts().begin(), teaching.drawnTexts().end(),
                               [](const render::DrawnText& t) { return t.fits; });
        };
        QTest::keyClick(&teaching, Qt::Key_End);
        QTest::keyClick(&teaching, Qt::Key_PageUp);
        QCOMPARE(teaching.slideIndex(), 9);
        teaching.grab();
        QCOMPARE(note(), 0);
        const double fitted = teaching.shownZoom();
        for (int press = 0; press < 5; ++press) {
            QTest::keyClick(&teaching, Qt::Key_Equal, Qt::ControlModifier);
            teaching.grab();
            QVERIFY(fits());
        }
        QVERIFY(teaching.shownZoom() >= fitted);
        QVERIFY(teaching.shownZoom() < teaching.zoom());
        QCOMPARE(note(), 1);
        // Zooming in stopped one step past what the slide shows.
        QVERIFY(teaching.zoom() <= teaching.shownZoom() * render::SlidePainter::zoomStep * 1.001);
        QTest::keyClick(&teaching, Qt::Key_Minus, Qt::ControlModifier);
        teaching.grab();
        QCOMPARE(note(), 0);
        QCOMPARE(teaching.zoom(), teaching.shownZoom());
        // The first slide has room: it grows.
        QTest::keyClick(&teaching, Qt::Key_Home);
        teaching.setZoom(1.0);
        teaching.grab();
        auto title = [&] {
            for (const render::DrawnText& t : teaching.drawnTexts())
                if (t.part == render::SlidePart::Title)
                    return t.size;
            return 0.0;
        };
        const double before = title();
        QTest::keyClick(&teaching, Qt::Key_Equal, Qt::ControlModifier);
        teaching.grab();
        QCOMPARE(teaching.shownZoom(), render::SlidePainter::zoomStep);
        QVERIFY(title() > before);
    }

    void followsTheLiveSession()
    {
        ui::Document doc;
        ui::ViewState view;
        ui::TeachingView teaching(&doc, &view);
        doc.waitForTrace();
        teaching.setSlide(1);
        // Q(1,1) = x₁·W_Q[:,1] = 1·1 + 0·1 + 1·0 + 0·0 = 1; with W_Q(0,0) = 2 it becomes 2.
        QCOMPARE(teaching.currentSlide()->matrices[0].values(0, 0), 1.0);
        QVERIFY(doc.setCell(ui::MatrixId::Query, 0, 0, 2.0));
        doc.waitForTrace();
        QTRY_COMPARE(teaching.currentSlide()->matrices[0].values(0, 0), 2.0);
        QCOMPARE(teaching.slideIndex(), 1);  // the teacher stays on the slide
        // Choosing another query walks that one.
        view.setSelectedQuery(2);
        teaching.setSlide(6);
        QVERIFY(teaching.currentSlide()->title.contains(QStringLiteral("Input 3")));
    }

    void paintsEverySlide()
    {
        ui::Document doc;
        ui::ViewState view;
        ui::TeachingView teaching(&doc, &view);
        teaching.resize(1280, 720);
        doc.waitForTrace();
        const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
        for (int i = 0; i < teaching.slideCount(); ++i) {
            teaching.setSlide(i);
            const QImage image = teaching.grab().toImage();
            QVERIFY(!image.isNull());
            // The view paints with the slide painter: every text it drew fits its box.
            QVERIFY(teaching.drawnTexts().size() > 3);
            for (const render::DrawnText& t : teaching.drawnTexts())
                QVERIFY2(t.fits, qPrintable(t.text));
            if (!dir.isEmpty())
                image.save(QDir(dir).filePath(QStringLiteral("teaching-%1.png").arg(i + 1)));
        }
    }
};

QTEST_MAIN(TestTeaching)
#include "tst_teaching.moc"
