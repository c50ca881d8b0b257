#pragma once
/** ModelLoader: loads a model session (a checkpoint folder, its text and edits) on a worker while the window
 *  stays live, with a progress bar and Cancel; and what is wrong with a folder that is not a checkpoint. */

#include "ui/document/modelsession.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <optional>

class QWidget;

namespace ui {

class ModelLoader {
    Q_DECLARE_TR_FUNCTIONS(ModelLoader)
public:
    /** How a load ended, beside what it returned. */
    struct Outcome {
        bool cancelled = false;     ///< Cancel was pressed: nothing is returned
        bool workerStopped = false; ///< the worker stopped at a step before the end (else it had finished)
    };

    /** Loads session (sessionPath: its file, empty for a folder opened as it is) on a worker, as loadModelSession
     *  does with names; a progress dialog parented to parent shows while it takes longer than a moment. Nothing
     *  when it was refused (error says why) or cancelled (error empty). Cancel tells the worker to stop at its next step (between reading
     *  tensors, between the forward pass's layers) and waits for it, so nothing of the load outlives the call.
     *  The event loop runs meanwhile (without user input while the worker stops). */
    static std::optional<LoadedModel> load(const core::ModelSession& session, const QString& sessionPath,
                                           const core::ModelSessionNames& names, QWidget* parent, QString* error,
                                           Outcome* outcome = nullptr);

    /** What a model folder lacks or has wrong, one line each, as far as the files' presence tells: no folder,
     *  no config.json, no model.safetensors (a pickled pytorch_model.bin only), no tokenizer (vocab.json with
     *  merges.txt, or tokenizer.json). Empty when every file is there. */
    static QStringList folderProblems(const QString& folder);

    /** The message box text for a folder that failed to load: the problems listed, then the loader's own. */
    static QString refusal(const QString& folder, const QString& error);
};

}  // namespace ui
