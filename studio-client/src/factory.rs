//! The factory: propose looks from pieces with their price, then draft the confirmed ones.

use studio_core::api::{FactoryPlan, FactoryPlanRequest, FactoryRunRequest, FactoryRunResponse};

use crate::Error;
use crate::client::Client;

impl Client {
    /// `POST /api/toolkit/factory/plan`: proposed looks, their cost and the balance; writes
    /// nothing.
    pub async fn factory_plan(&self, req: &FactoryPlanRequest) -> Result<FactoryPlan, Error> {
        self.post("/api/toolkit/factory/plan", req).await
    }

    /// `POST /api/toolkit/factory/run`: one draft look per look asked, under one batch; spends
    /// nothing.
    pub async fn factory_run(&self, req: &FactoryRunRequest) -> Result<FactoryRunResponse, Error> {
        self.post("/api/toolkit/factory/run", req).await
    }
}
