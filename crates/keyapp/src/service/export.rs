//! Export: the person's records as one document (`crate::export`), gathered
//! from the views every surface lists, so an export says what the screens say.

use super::{Records, ServiceError};
use crate::export::{AttestationSummary, ExportFormat, RecordsExport, FORMAT};
use crate::record_query::{HistoryQuery, RecordSearch, MAX_PAGE};

impl Records<'_> {
    /// Every record the person can look back at, at this moment.
    pub async fn records_export(self) -> Result<RecordsExport, ServiceError> {
        // History page by page, all of it: an export has no cap.
        let mut history = Vec::new();
        let mut query = HistoryQuery::from(RecordSearch { limit: Some(MAX_PAGE), ..Default::default() });
        loop {
            let page = self.history_page(&query).await?;
            history.extend(page.items);
            match page.next {
                Some(next) => query.search.cursor = Some(next),
                None => break,
            }
        }
        let now = self.svc.now();
        let attestations = self
            .svc
            .directory()
            .attestations()
            .await?
            .into_iter()
            .map(|a| AttestationSummary { iss: a.iss, exp: a.exp, expires: a.expires })
            .collect();
        Ok(RecordsExport {
            format: FORMAT.to_owned(),
            exported_at: now,
            exported: self.svc.instant_words(now),
            language: self.svc.language().tag().to_owned(),
            principal: self.svc.principal().to_owned(),
            history,
            credentials: self.credentials(None).await?,
            bookings: self.bookings().await?,
            contacts: self.svc.directory().contacts().await?,
            attestations,
        })
    }

    /// The export as the document `format` names.
    pub async fn export_document(self, format: ExportFormat) -> Result<String, ServiceError> {
        Ok(self.records_export().await?.render(format, self.svc.language()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::service_at;
    use super::*;
    use crate::kind::RequestKind;
    use crate::service::Service;
    use crate::store::{history, testing};
    use base64::Engine as _;

    const T0: i64 = 1_792_000_000;
    /// What a signed credential looks like: no export may hold one.
    const COMPACT: &str = "eyJhbGciOiJFZERTQSIsInR5cCI6InNjaGNwLW1hbmRhdGUrand0In0.eyJzZWNyZXQiOnRydWV9.c2lnbmF0dXJl";

    /// Records of every kind, one credential signed as `COMPACT`, and more
    /// history than one page holds.
    async fn records(svc: &Service) {
        let mut c = testing::credential(0, "m-1", RequestKind::Mandate, "jkt-a");
        c.compact = COMPACT.into();
        svc.record_sealed(c).await.unwrap();
        svc.directory()
            .add_contact(
                &format!("{}x", schcp::jwk::PRINCIPAL_PREFIX),
                "<script>alert(1)</script> & Ellis",
                None,
                crate::service::Origin::ThisProcess,
            )
            .await
            .unwrap();
        let mut tx = svc.store().begin().await.unwrap();
        for i in 0..(MAX_PAGE as i64 + 5) {
            history::append(&mut tx, svc.store().history_seal(), T0 + i, "contact_renamed", "urn:x", "Ellis", None)
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
    }

    fn validator() -> jsonschema::Validator {
        let schema: serde_json::Value = serde_json::from_str(crate::export::SCHEMA_JSON).unwrap();
        jsonschema::draft202012::meta::validate(&schema).expect("a 2020-12 schema");
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&schema)
            .unwrap()
    }

    #[tokio::test]
    async fn the_json_export_holds_every_record_and_follows_its_schema() {
        let (svc, _clock, _dir) = service_at(T0 + 1000).await;
        records(&svc).await;
        let doc = svc.records().export_document(ExportFormat::Json).await.unwrap();
        let value: serde_json::Value = serde_json::from_str(&doc).unwrap();
        let v = validator();
        if let Err(e) = v.validate(&value) {
            panic!("the export does not follow its schema: {e}\n{doc}");
        }
        assert_eq!(value["format"], FORMAT);
        // Every entry, past the largest page.
        assert_eq!(value["history"].as_array().unwrap().len(), MAX_PAGE as usize + 5 + 1);
        assert_eq!(value["credentials"][0]["jti"], "m-1");
        assert_eq!(value["principal"], svc.principal());

        // The schema is closed: a member it does not list, or a signed
        // credential slipped in, is refused.
        let mut wider = value.clone();
        wider["credentials"][0]["compact"] = serde_json::json!(COMPACT);
        assert!(!v.is_valid(&wider));
        let mut other = value.clone();
        other["format"] = serde_json::json!("schcp-keyapp-records/2");
        assert!(!v.is_valid(&other));
    }

    #[tokio::test]
    async fn no_export_holds_key_material_or_a_signed_credential() {
        let (svc, _clock, _dir) = service_at(T0 + 1000).await;
        records(&svc).await;
        // The test service's key is the seed [1; 32] (test_support).
        let seed = [1u8; 32];
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(seed);
        let std64 = base64::engine::general_purpose::STANDARD.encode(seed);
        let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
        for format in [ExportFormat::Json, ExportFormat::Html] {
            let doc = svc.records().export_document(format).await.unwrap();
            for secret in [b64.as_str(), &b64[..20], std64.as_str(), hex.as_str(), COMPACT, "eyJ"] {
                assert!(!doc.contains(secret), "{format:?} holds {secret}");
            }
            assert!(!doc.contains("\"d\""), "{format:?} holds a private JWK member");
        }
    }

    #[tokio::test]
    async fn the_printable_page_shows_every_record_as_inert_text() {
        let (svc, _clock, _dir) = service_at(T0 + 1000).await;
        records(&svc).await;
        let page = svc.records().export_document(ExportFormat::Html).await.unwrap();
        assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<html lang=\"en\">"));
        assert!(!page.contains("<script"), "a name is never markup");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; Ellis"), "{page}");
        assert!(page.contains("Your key app records") && page.contains("History"));
        // Every history entry, the credential and the contact, under the three
        // tables' headings; no booking or attestation: "nothing here yet".
        assert_eq!(page.matches("<tr>").count(), (MAX_PAGE as usize + 6) + 1 + 1 + 3);
        assert_eq!(page.matches("Nothing here yet.").count(), 2);

        svc.profile().set_language(schcp_consent::Language::French).unwrap();
        let fr = svc.records().export_document(ExportFormat::Html).await.unwrap();
        assert!(fr.contains("<html lang=\"fr\">") && fr.contains("Historique"), "in the person's language");
    }

    #[test]
    fn an_export_is_written_only_to_an_absolute_path_and_only_for_its_owner() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            crate::export::write(std::path::Path::new("records.json"), "{}"),
            Err(crate::export::ExportError::NotAbsolute(_))
        ));
        let path = dir.path().join("records.json");
        crate::export::write(&path, "{}").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let missing = dir.path().join("no/such/dir/records.json");
        assert!(matches!(crate::export::write(&missing, "{}"), Err(crate::export::ExportError::Write { .. })));
    }
}
