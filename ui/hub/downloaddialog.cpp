#include "ui/hub/downloaddialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace hub {

DownloadDialog::DownloadDialog(HubSettings settings, QWidget* parent)
    : QDialog(parent), m_settings(std::move(settings)), m_id(new QComboBox(this)), m_bar(new QProgressBar(this)),
      m_status(new QLabel(this))
{
    setWindowTitle(tr("Download Model"));
    m_id->setObjectName(QStringLiteral("hubId"));
    m_id->setEditable(true);
    m_id->addItems(suggestions());
    m_id->setCurrentText(QString());
    m_id->lineEdit()->setPlaceholderText(QStringLiteral("openai-community/gpt2"));
    m_bar->setObjectName(QStringLiteral("hubProgress"));
    m_bar->setRange(0, 1000);
    m_bar->setValue(0);
    m_status->setObjectName(QStringLiteral("hubStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setText(tr("Only the files the program reads are fetched, into the Hugging Face cache (%1), "
                         "where transformers finds them too.")
                          .arg(m_settings.cache));

    auto* buttons = new QDialogButtonBox(this);
    m_download = buttons->addButton(tr("Download"), QDialogButtonBox::AcceptRole);
    m_download->setObjectName(QStringLiteral("hubDownload"));
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    m_cancel->setObjectName(QStringLiteral("hubCancel"));
    connect(m_download, &QPushButton::clicked, this, &DownloadDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &DownloadDialog::reject);

    auto* form = new QFormLayout;
    form->addRow(tr("Repository (ORG/NAME[@REVISION]):"), m_id);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_bar);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    setMinimumWidth(520);
}

QStringList DownloadDialog::suggestions()
{
    return {QStringLiteral("openai-community/gpt2"), QStringLiteral("HuggingFaceTB/SmolLM2-135M"),
            QStringLiteral("Qwen/Qwen2.5-0.5B"), QStringLiteral("EleutherAI/pythia-160m")};
}

void DownloadDialog::reject()
{
    if (m_downloader) {  // the first Cancel stops the download; the dialog stays to say so
        m_downloader->cancel();
        return;
    }
    QDialog::reject();
}

void DownloadDialog::start()
{
    const QString text = m_id->currentText().trimmed();
    const auto id = core::parseHubId(text.toStdString());
    if (!id) {
        m_status->setText(tr("\"%1\" is not a repository id: give ORG/NAME, such as openai-community/gpt2, "
                             "optionally with @REVISION").arg(text));
        return;
    }
    HubDownloader downloader(m_settings);
    m_downloader = &downloader;
    connect(&downloader, &HubDownloader::progressed, this, &DownloadDialog::showProgress);
    m_id->setEnabled(false);
    m_download->setEnabled(false);
    m_bar->setValue(0);
    m_status->setText(tr("Asking the Hub for %1…").arg(text));
    const DownloadResult result = downloader.download(*id);  // the event loop runs meanwhile: Cancel stays live
    m_downloader = nullptr;
    m_id->setEnabled(true);
    m_download->setEnabled(true);
    if (result.outcome == Outcome::Done) {
        m_snapshot = result.snapshot;
        m_bar->setValue(m_bar->maximum());
        emit downloaded(text, m_snapshot);
        accept();
        return;
    }
    m_status->setText(result.outcome == Outcome::Cancelled
                          ? tr("Cancelled. What was received is kept: downloading again resumes it.")
                          : result.message);
}

void DownloadDialog::showProgress(const Progress& progress)
{
    if (progress.total > 0)
        m_bar->setValue(int(std::min<qint64>(1000, progress.done * 1000 / progress.total)));
    const QLocale locale;
    const double left = progress.secondsLeft();
    const QString time = left < 0 ? tr("time left unknown")
                                  : tr("%1:%2 left").arg(qint64(left) / 60).arg(qint64(left) % 60, 2, 10, QLatin1Char('0'));
    m_status->setText(tr("%1 · %2 of %3 · %4/s · %5")
                          .arg(progress.file, locale.formattedDataSize(progress.done),
                               locale.formattedDataSize(progress.total),
                               locale.formattedDataSize(qint64(progress.bytesPerSecond)), time));
}

} // namespace hub
