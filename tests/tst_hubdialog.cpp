/** File › Download Model…'s dialog against the fake Hub: a download that ends well (the signal, the snapshot, the
 *  bar full), Cancel while the weights arrive (the dialog stays and says so, nothing in the blob's place), a gated
 *  repository's words, an id that is not one, and the cached models' table (QAbstractItemModelTester) with a model
 *  that cannot be opened greyed, its reason in the tool tip. */

#include "fakehub.h"
#include "ui/hub/cachedmodels.h"
#include "ui/hub/downloaddialog.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>

namespace fs = std::filesystem;
using namespace testutil;

class TestHubDialog : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<FakeHub> m_hub;
    std::unique_ptr<QTemporaryDir> m_dir;

    hub::HubSettings settings() const
    {
        return m_hub->settings(m_dir->path() + QStringLiteral("/hub"));
    }

    fs::path snapshot() const
    {
        return fs::path(core::hubRepoFolder(m_dir->path().toStdString() + "/hub", "tiny-org/tiny")) / "snapshots"
            / commit.toStdString();
    }

private slots:
    void init()
    {
        m_hub = std::make_unique<FakeHub>();
        m_dir = std::make_unique<QTemporaryDir>();
        m_hub->repos["tiny-org/tiny"] = {commit, tinyRepository()};
    }

    void downloads()
    {
        hub::DownloadDialog dialog(settings());
        auto* id = dialog.findChild<QComboBox*>(QStringLiteral("hubId"));
        QVERIFY(id);
        QCOMPARE(id->count(), 4);  // the suggestions
        id->setCurrentText(QStringLiteral("tiny-org/tiny"));
        QSignalSpy downloaded(&dialog, &hub::DownloadDialog::downloaded);
        dialog.show();
        dialog.findChild<QPushButton*>(QStringLiteral("hubDownload"))->click();
        QCOMPARE(downloaded.size(), 1);
        QCOMPARE(downloaded[0][0].toString(), QStringLiteral("tiny-org/tiny"));
        QCOMPARE(downloaded[0][1].toString().toStdString(), snapshot().string());
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(dialog.findChild<QProgressBar*>(QStringLiteral("hubProgress"))->value(), 1000);
        QVERIFY(fs::exists(snapshot() / "model.safetensors"));
    }

    void cancels()
    {
        m_hub->repos["tiny-org/tiny"].files["model.safetensors"] = QByteArray(400000, 'w');
        m_hub->dribbleMs = 20;
        hub::DownloadDialog dialog(settings());
        dialog.findChild<QComboBox*>(QStringLiteral("hubId"))->setCurrentText(QStringLiteral("tiny-org/tiny"));
        dialog.show();
        auto* bar = dialog.findChild<QProgressBar*>(QStringLiteral("hubProgress"));
        auto* status = dialog.findChild<QLabel*>(QStringLiteral("hubStatus"));
        // Cancel once the weights are coming in, as a person would press it.
        bool pressed = false;
        QTimer poll;
        connect(&poll, &QTimer::timeout, this, [&] {
            if (!pressed && status->text().startsWith(QLatin1String("model.safetensors")) && bar->value() > 0) {
                pressed = true;
                QVERIFY(status->text().contains(QLatin1String("/s")));
                dialog.findChild<QPushButton*>(QStringLiteral("hubCancel"))->click();
            }
        });
        poll.start(10);
        dialog.findChild<QPushButton*>(QStringLiteral("hubDownload"))->click();
        QVERIFY(pressed);
        QVERIFY(dialog.isVisible());
        QVERIFY2(status->text().startsWith(QLatin1String("Cancelled")), qPrintable(status->text()));
        QVERIFY(dialog.findChild<QPushButton*>(QStringLiteral("hubDownload"))->isEnabled());
        QVERIFY(!fs::exists(fs::symlink_status(snapshot() / "model.safetensors")));
    }

    void saysWhatIsWrong()
    {
        m_hub->repos["tiny-org/tiny"].gated = true;
        hub::DownloadDialog dialog(settings());
        auto* id = dialog.findChild<QComboBox*>(QStringLiteral("hubId"));
        auto* status = dialog.findChild<QLabel*>(QStringLiteral("hubStatus"));
        auto* download = dialog.findChild<QPushButton*>(QStringLiteral("hubDownload"));
        dialog.show();
        id->setCurrentText(QStringLiteral("tiny-org/tiny"));
        download->click();
        QVERIFY2(status->text().contains(QLatin1String("tiny-org/tiny is gated")), qPrintable(status->text()));
        id->setCurrentText(QStringLiteral("gpt2 small"));
        download->click();
        QVERIFY2(status->text().contains(QLatin1String("not a repository id")), qPrintable(status->text()));
        QVERIFY(dialog.isVisible());
    }

    void listsTheCache()
    {
        {
            hub::DownloadDialog dialog(settings());
            dialog.findChild<QComboBox*>(QStringLiteral("hubId"))->setCurrentText(QStringLiteral("tiny-org/tiny"));
            dialog.findChild<QPushButton*>(QStringLiteral("hubDownload"))->click();
        }
        // A second repository whose config names an architecture the program does not read.
        const fs::path bert = fs::path(core::hubRepoFolder(m_dir->path().toStdString() + "/hub", "some/bert"));
        fs::create_directories(bert / "snapshots" / commit.toStdString());
        fs::create_directories(bert / "refs");
        QVERIFY(writeText((bert / "refs" / "main").string(), commit.toStdString()));
        QVERIFY(writeText((bert / "snapshots" / commit.toStdString() / "config.json").string(),
                          std::string(R"({"architectures": ["BertModel"]})")));

        hub::CachedModelsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.reload(m_dir->path() + QStringLiteral("/hub"));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, hub::CachedModelsModel::IdColumn).data().toString(), QStringLiteral("some/bert"));
        QCOMPARE(model.index(0, hub::CachedModelsModel::ArchitectureColumn).data().toString(), QStringLiteral("BertModel"));
        QVERIFY(!(model.flags(model.index(0, 0)) & Qt::ItemIsEnabled));
        QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().contains(QLatin1String("BertModel")));
        QCOMPARE(model.index(1, hub::CachedModelsModel::IdColumn).data().toString(), QStringLiteral("tiny-org/tiny"));
        QVERIFY(model.flags(model.index(1, 0)) & Qt::ItemIsEnabled);
        QCOMPARE(model.index(1, 0).data(hub::CachedModelsModel::FolderRole).toString().toStdString(), snapshot().string());
        QVERIFY(!model.index(1, hub::CachedModelsModel::SizeColumn).data().toString().isEmpty());
    }
};

QTEST_MAIN(TestHubDialog)
#include "tst_hubdialog.moc"
