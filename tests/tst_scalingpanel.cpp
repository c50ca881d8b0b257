/** The "why √d_k" panel: it charts the core's study, live and off the GUI thread. */

#include "ui/views/steps/scalingpanel.h"

#include <QDir>
#include <QSignalSpy>
#include <QTest>

class TestScalingPanel : public QObject {
    Q_OBJECT
private slots:
    void chartsTheStudy()
    {
        ui::ScalingPanel panel;
        panel.resize(900, 640);
        QSignalSpy changed(&panel, &ui::ScalingPanel::studyChanged);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.study().dk.empty(), 20000);
        const core::ScalingStudy& s = panel.study();
        QCOMPARE(s.dk.front(), 1);
        QCOMPARE(s.dk.back(), 512);
        QCOMPARE(s.keys, 64);
        // What the panel exists to show: scaled spread stays near 1, unscaled grows like √d_k.
        QVERIFY(std::abs(s.spreadScaled.back() - 1.0) < 0.15);
        QVERIFY(s.spreadUnscaled.back() > 15.0);
        QVERIFY(s.maxWeightUnscaled.back() > s.maxWeightScaled.back());
        const QImage image = panel.grab().toImage();
        QVERIFY(!image.isNull());
        const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            image.save(QDir(dir).filePath(QStringLiteral("scaling.png")));
    }

    void rerunsForAnotherN()
    {
        ui::ScalingPanel panel;
        QTRY_VERIFY_WITH_TIMEOUT(!panel.study().dk.empty(), 20000);
        QSignalSpy changed(&panel, &ui::ScalingPanel::studyChanged);
        panel.run(8);
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 20000);
        QCOMPARE(panel.study().keys, 8);
        QVERIFY(std::abs(panel.study().maxEntropy - std::log(8.0)) < 1e-12);
    }
};

QTEST_MAIN(TestScalingPanel)
#include "tst_scalingpanel.moc"
